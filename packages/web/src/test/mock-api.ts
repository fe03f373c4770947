import { apiRoutes, type ApiBody, type ApiResponseOf, type ApiRouteKey, type RouteContract } from '@modelgate/shared/api';
import { http, HttpResponse, type HttpHandler } from 'msw';
import { setupServer } from 'msw/node';
import { DEFAULT_STATUS } from './fixtures';

/**
 * The network layer of the web tests (msw): `/api` calls are answered by handlers keyed and typed
 * by the server's route contracts (`@modelgate/shared/api`). Every request body and query the
 * console sends is parsed with the server's own schema, and every answer a handler gives with the
 * route's response schema, so a fixture or a request that drifts from the server fails the test.
 * The real API client, hooks and components run; only the server is replaced.
 */

export interface RecordedCall<K extends ApiRouteKey | undefined = undefined> {
  method: string;
  /** The path as sent (trailing slash included). */
  path: string;
  params: Record<string, string>;
  query: URLSearchParams;
  /** Lower-case names. */
  headers: Record<string, string>;
  /** The JSON body as sent (typed by the route's request schema in a handler). */
  body: (K extends ApiRouteKey ? ApiBody<K> : unknown) | undefined;
}

/** An HTTP reply other than 200 (the envelope, if any, goes in `body`). */
interface StatusReply {
  __status: number;
  body?: unknown;
}
type Reply<K extends ApiRouteKey> = ApiResponseOf<K> | StatusReply;
export type Handler<K extends ApiRouteKey> = (call: RecordedCall<K>) => Reply<K> | Promise<Reply<K>>;
export type Handlers = { [K in ApiRouteKey]?: Handler<K> };

export function status(code: number, body?: unknown): StatusReply {
  return { __status: code, body };
}

export function ok<T>(data: T): { success: true; message: ''; data: T } {
  return { success: true, message: '', data };
}

/** Success without `data`, as the server answers actions. */
export const done = { success: true, message: '' } as const;

export function fail(message: string): { success: false; message: string } {
  return { success: false, message };
}

/** Answers anything no test declared like the server does an unknown route. */
const fallback = http.all('*', ({ request }) =>
  HttpResponse.json(fail(`no handler for ${request.method} ${new URL(request.url).pathname}`), { status: 404 }),
);

export const server = setupServer(fallback);

/** Mismatches with the server's contracts seen in this test; setup.ts fails the test on any. */
export const contractViolations: string[] = [];

const calls: RecordedCall[] = [];

function queryObject(query: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const key of new Set(query.keys())) {
    const all = query.getAll(key);
    out[key] = all.length > 1 ? all : all[0]!;
  }
  return out;
}

function check(what: string, schema: RouteContract['body'], value: unknown): void {
  if (!schema) return;
  const r = schema.safeParse(value);
  if (!r.success) contractViolations.push(`${what}: ${r.error.issues.map((i) => `${i.path.join('.') || '(root)'} ${i.message}`).join('; ')}\n${JSON.stringify(value)}`);
}

function handlerFor<K extends ApiRouteKey>(key: K, handler: Handler<K>): HttpHandler {
  const contract: RouteContract = apiRoutes[key];
  const at = key.indexOf(' ');
  const method = key.slice(0, at).toLowerCase() as 'get' | 'post' | 'put' | 'delete';
  return http[method](key.slice(at + 1), async ({ request, params }) => {
    const url = new URL(request.url);
    const text = await request.text();
    const body = text ? (JSON.parse(text) as RecordedCall<K>['body']) : undefined;
    const call: RecordedCall<K> = {
      method: request.method,
      path: url.pathname,
      params: params as Record<string, string>,
      query: url.searchParams,
      headers: Object.fromEntries(request.headers.entries()),
      body,
    };
    calls.push(call as unknown as RecordedCall);
    check(`${key}: the console sent a query the server refuses`, contract.querystring, queryObject(url.searchParams));
    check(`${key}: the console sent a body the server refuses`, contract.body, body ?? {});
    const reply = await handler(call);
    if (reply && typeof reply === 'object' && '__status' in reply) {
      const { __status, body: replyBody } = reply;
      return new HttpResponse(replyBody === undefined ? null : JSON.stringify(replyBody), { status: __status });
    }
    check(`${key}: the test answered a shape the server never sends`, contract.response, reply);
    return HttpResponse.json(reply as object);
  });
}

/** Static paths before parameterised ones, so `/api/user/self` is never taken for `/api/user/:id`. */
function specificFirst(a: string, b: string): number {
  return Number(a.includes(':')) - Number(b.includes(':'));
}

/**
 * Answers `/api` like the server for this test: `{ 'GET /api/token/': (call) => ok([...]) }`.
 * `GET /api/status`, the notice, the home page, the two-factor status (off: the security card on
 * personal settings and the admin enrolment check read it on every signed-in page) and the passkey
 * list (none) have defaults.
 */
export function mockApi(handlers: Handlers) {
  calls.length = 0;
  const table: Handlers = {
    'GET /api/status': () => ok(DEFAULT_STATUS),
    'GET /api/notice': () => ok(''),
    'GET /api/home_page_content': () => ok(''),
    'GET /api/user/2fa/status': () => ok({ enabled: false, backup_codes_remaining: 0, enrolment_required: false, passkeys: 0 }),
    'GET /api/user/passkey': () => ok([]),
    ...handlers,
  };
  const keys = (Object.keys(table) as ApiRouteKey[]).sort(specificFirst);
  server.use(...keys.map((key) => handlerFor(key, table[key] as Handler<typeof key>)));
  return {
    calls,
    find: (method: string, path: string) => calls.filter((call) => call.method === method && call.path === path),
  };
}
export { DEFAULT_STATUS } from './fixtures';
