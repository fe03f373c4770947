import js from '@eslint/js';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { outboundGuard } from './eslint.outbound.js';

// Type-aware rules need every linted .ts file inside a TypeScript program. The build tsconfigs leave
// tests out (they must not land in dist), so each package has a tsconfig.lint.json that adds them.
const typedProjects = [
  './packages/shared/tsconfig.lint.json',
  './packages/testkit/tsconfig.lint.json',
  './packages/server/tsconfig.lint.json',
  './packages/web/tsconfig.json',
  './e2e/tsconfig.json',
];

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'data/**', '.tmp/**', 'test-results/**', 'playwright-report/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'warn',
      // A file past ~400 lines usually holds two concerns. Tests get no exemption: every test file
      // fits today, and a long one is as hard to find a case in as a long module is to change. A
      // warning, so where to split stays a judgement call.
      'max-lines': ['warn', { max: 400, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    files: ['packages/*/src/**/*.{ts,tsx}', 'packages/*/vitest.config.ts', 'packages/web/vite.config.ts', 'e2e/**/*.ts'],
    languageOptions: { parserOptions: { project: typedProjects, tsconfigRootDir: import.meta.dirname } },
    rules: {
      // A promise nobody awaits loses its rejection: an unhandled rejection kills the server process,
      // and in a test it lets the test finish before the work it meant to check.
      '@typescript-eslint/no-floating-promises': 'error',
      // An async callback where a void one is expected (event emitters, setInterval, forEach, JSX
      // handlers) drops its rejection the same way.
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
    },
  },
  {
    files: ['packages/web/src/**/*.{ts,tsx}'],
    ...reactHooks.configs.flat['recommended-latest'],
  },
  // No raw outbound HTTP in the server outside the guarded client and a reasoned allow list.
  ...outboundGuard,
);
