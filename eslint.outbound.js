import tseslint from 'typescript-eslint';

/**
 * Outbound requests from the server (docs/security.md#outbound-requests): a fetch a user or an
 * admin-configured third party can aim goes through the SSRF-guarded client in
 * packages/server/src/net/. Every other way out of the process is refused here, outside a short list
 * of files that reach where the operator or the administrator pointed them, each with its reason.
 * Tests and test support are exempt (they drive servers on loopback).
 */
const SERVER = 'packages/server/src';
const GUARDED = 'use the SSRF-guarded client (packages/server/src/net/guarded-fetch.ts, media-fetch.ts); see docs/security.md#outbound-requests';

const clientNames = (names) => ({ importNames: names, message: `No raw outbound client here: ${GUARDED}.` });

const restrictions = {
  'no-restricted-globals': ['error', { name: 'fetch', message: `No global fetch in the server: ${GUARDED}.` }],
  'no-restricted-properties': [
    'error',
    { object: 'globalThis', property: 'fetch', message: `No global fetch in the server: ${GUARDED}.` },
    { object: 'global', property: 'fetch', message: `No global fetch in the server: ${GUARDED}.` },
  ],
  '@typescript-eslint/no-restricted-imports': [
    'error',
    {
      paths: [
        { name: 'undici', ...clientNames(['request', 'fetch', 'stream', 'pipeline', 'connect', 'upgrade', 'Agent', 'Pool', 'BalancedPool', 'Client', 'ProxyAgent', 'EnvHttpProxyAgent', 'RetryAgent', 'setGlobalDispatcher', 'default']), allowTypeImports: true },
        ...['node:http', 'http', 'node:https', 'https'].map((name) => ({ name, ...clientNames(['request', 'get', 'Agent', 'globalAgent', 'default']), allowTypeImports: true })),
        ...['node:http2', 'http2'].map((name) => ({ name, ...clientNames(['connect', 'default']), allowTypeImports: true })),
        ...['node:net', 'net', 'node:tls', 'tls'].map((name) => ({ name, ...clientNames(['connect', 'createConnection', 'Socket', 'default']), allowTypeImports: true })),
        { name: 'ws', ...clientNames(['WebSocket', 'default']), allowTypeImports: true },
      ],
    },
  ],
};
const off = Object.fromEntries(Object.keys(restrictions).map((rule) => [rule, 'off']));

/** Files that may open connections themselves, and why. */
export const OUTBOUND_ALLOWED = [
  // The guarded client itself: address checks, pinning, redirects, caps.
  [`${SERVER}/net/**/*.ts`, 'the SSRF-guarded client'],
  // The relay's upstream pools and its one raw request (`sendUpstream`): every exchange with a channel's
  // upstream (relay attempts, task follow-ups, channel test, model list, balance, through
  // relay/upstream-client.ts) and the side calls an adapter makes to its channel's own base URL end
  // there (connections of targets root did not place are checked by net/upstream-guard.ts).
  [`${SERVER}/relay/upstream.ts`, "relay upstream pools and request: where a channel points is the administrator's choice"],
  // WebSocket upstreams (iFlytek Spark, OpenAI Realtime): the channel's base URL, like any relay request.
  [`${SERVER}/relay/adapters/spark/transport.ts`, 'Spark WebSocket upstream transport'],
  [`${SERVER}/relay/realtime/realtime.routes.ts`, 'Realtime WebSocket upstream (and its WebSocket server)'],
  // Turnstile verification: a fixed Cloudflare URL from the operator's configuration (TURNSTILE_VERIFY_URL).
  [`${SERVER}/http/turnstile.ts`, 'fixed Turnstile verify URL from configuration'],
];

export const outboundGuard = [
  {
    files: [`${SERVER}/**/*.ts`],
    ignores: ['**/*.test.ts', `${SERVER}/test-support/**`],
    plugins: { '@typescript-eslint': tseslint.plugin },
    rules: restrictions,
  },
  { files: OUTBOUND_ALLOWED.map(([glob]) => glob), rules: off },
];
