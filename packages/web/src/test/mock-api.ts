import { vi } from 'vitest';

export interface RecordedCall {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

type Reply = unknown | { __status: number; body?: unknown };
export type Handler = (call: RecordedCall) => Reply | Promise<Reply>;

/** An HTTP reply other than 200 (the envelope goes in `body`). */
export function status(code: number, body?: unknown): Reply {
  return { __status: code, body };
}

export function ok<T>(data: T, message = ''): { success: true; message: string; data: T } {
  return { success: true, message, data };
}

export function fail(message: string): { success: false; message: string } {
  return { success: false, message };
}

export const DEFAULT_STATUS = {
  version: 'v0.1.0-test',
  start_time: 1700000000,
  system_name: 'ModelGate',
  logo: '',
  footer_html: '',
  quota_per_unit: 500000,
  display_in_currency: true,
  chats: [],
  enable_drawing: false,
  enable_task: false,
  enable_data_export: false,
  default_collapse_sidebar: false,
  email_verification: false,
  turnstile_check: false,
};

/**
 * Replaces fetch with a table of "METHOD /path" handlers answering like the server's /api.
 * The browser boundary is the only thing faked: the real API client, hooks and components run.
 */
export function mockApi(handlers: Record<string, Handler>) {
  const calls: RecordedCall[] = [];
  const table: Record<string, Handler> = {
    'GET /api/status': () => ok(DEFAULT_STATUS),
    'GET /api/notice': () => ok(''),
    'GET /api/home_page_content': () => ok(''),
    ...handlers,
  };
  const fetchMock = vi.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const url = new URL(String(input), 'http://localhost');
    const method = (init.method ?? 'GET').toUpperCase();
    const headers = Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>));
    const body = typeof init.body === 'string' ? JSON.parse(init.body) : undefined;
    const call: RecordedCall = { method, path: url.pathname, query: url.searchParams, headers, body };
    calls.push(call);
    const handler = table[`${method} ${url.pathname}`];
    if (!handler) return new Response(JSON.stringify(fail(`no handler for ${method} ${url.pathname}`)), { status: 404 });
    const reply = await handler(call);
    if (reply && typeof reply === 'object' && '__status' in reply) {
      const { __status, body: replyBody } = reply as { __status: number; body?: unknown };
      return new Response(replyBody === undefined ? '' : JSON.stringify(replyBody), { status: __status });
    }
    return new Response(JSON.stringify(reply), { status: 200, headers: { 'Content-Type': 'application/json' } });
  });
  vi.stubGlobal('fetch', fetchMock);
  return {
    calls,
    find: (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path),
  };
}
