import { cleanup, configure } from '@testing-library/react';
import { afterAll, afterEach, beforeAll, beforeEach, vi } from 'vitest';
import i18n, { NAMESPACES } from '../i18n';
import { contractViolations, server } from './mock-api';

// HTTP is answered at the network layer (msw); a request no test declared gets the server's 404.
beforeAll(() => server.listen({ onUnhandledRequest: 'bypass' }));
// The console fetches a screen's translations with the screen; tests that render a component
// alone need them all up front.
beforeAll(() => i18n.loadNamespaces(NAMESPACES));
afterAll(() => server.close());

// Lazy routes plus antd's first render take a few seconds on a cold jsdom, more on a busy 2-core machine.
configure({ asyncUtilTimeout: 15000 });

// antd reads media queries for responsive grids; jsdom has no matchMedia.
Object.defineProperty(window, 'matchMedia', {
  writable: true,
  configurable: true,
  value: (query: string) => ({
    matches: false,
    media: query,
    onchange: null,
    addListener: () => {},
    removeListener: () => {},
    addEventListener: () => {},
    removeEventListener: () => {},
    dispatchEvent: () => false,
  }),
});

if (!('ResizeObserver' in window)) {
  class ResizeObserverStub {
    observe() {}
    unobserve() {}
    disconnect() {}
  }
  Object.defineProperty(window, 'ResizeObserver', { writable: true, configurable: true, value: ResizeObserverStub });
}

// antd measures scrollbars with a pseudo-element argument jsdom does not implement.
const originalGetComputedStyle = window.getComputedStyle.bind(window);
window.getComputedStyle = (element: Element) => originalGetComputedStyle(element);

// React and antd report misuse (deprecated props, act() problems, unknown DOM props) through
// console.error; treat those as test failures so they never reach the browser console.
let consoleErrors: string[] = [];
const originalConsoleError = console.error;
// jsdom has no layout: auto-sized text areas compute a NaN height there, never in a browser.
const JSDOM_ONLY = [/`NaN` is an invalid value for the `%s` css style property.*height/];

beforeEach(async () => {
  consoleErrors = [];
  vi.spyOn(console, 'error').mockImplementation((...args: unknown[]) => {
    const text = args.map(String).join(' ');
    if (JSDOM_ONLY.some((pattern) => pattern.test(text))) return;
    consoleErrors.push(text);
    originalConsoleError(...args);
  });
  localStorage.clear();
  await i18n.changeLanguage('zh');
});

afterEach(() => {
  cleanup();
  server.resetHandlers();
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  const errors = consoleErrors;
  consoleErrors = [];
  if (errors.length > 0) throw new Error(`console.error was called:\n${errors.join('\n')}`);
  const violations = contractViolations.splice(0);
  if (violations.length > 0) throw new Error(`calls that break the server's contract (@modelgate/shared/api):\n${violations.join('\n')}`);
});
