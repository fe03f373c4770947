import { Role } from '@modelgate/shared';
import { apiRoutes, type RouteContract } from '@modelgate/shared/api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient, type ApiResult } from '../test-support/api-client.js';
import { CALLERS, startAccessWorld, type AccessWorld, type Caller } from '../test-support/access-world.js';
import { toQuery, validSample } from '../test-support/schema-arbitrary.js';
import { routeKey, SERVER_ROUTES, type RouteAccessLevel } from './route-access.js';

/**
 * Issue 22 item 2, generated: every route of the server (each contract of @modelgate/shared/api
 * and each entry of http/route-access.ts) called by each kind of caller with a schema-derived,
 * valid-ish request — path ids are objects of another user — and the outcome class checked
 * against the declared access: a caller the declaration leaves out is refused (401/403, or the
 * envelope's permission message), a caller it lets in is never refused and never gets a 500.
 */
const ALLOWED: Record<RouteAccessLevel, readonly Caller[]> = {
  public: CALLERS,
  user: ['user', 'admin', 'root'],
  admin: ['admin', 'root'],
  root: ['root'],
  token: ['token'],
  secret: [],
};

/** The guards' own refusals (http/auth.ts, the playground's session-only rule), in English. */
const REFUSAL = /^(No permission for this operation|Not logged in or session expired|Session expired or ended|User banned|The playground needs a signed-in session)/;

export function refused(r: ApiResult): boolean {
  if (r.status === 401 || r.status === 403) return true;
  return r.status === 200 && r.body?.success === false && REFUSAL.test(String(r.body.message ?? ''));
}

type Route = { key: string; method: string; url: string; auth: RouteAccessLevel; contract?: RouteContract };

/** Every declared route; the first test checks it is exactly what the server registers. */
const ROUTES: Route[] = [
  ...Object.entries(apiRoutes as Record<string, RouteContract>).map(([key, contract]) => ({ key, contract, auth: contract.auth as RouteAccessLevel })),
  ...Object.entries(SERVER_ROUTES).map(([key, s]) => ({ key, auth: s.auth })),
].map((r) => ({ ...r, method: r.key.slice(0, r.key.indexOf(' ')), url: r.key.slice(r.key.indexOf(' ') + 1) }));

/** Ending the caller's own session or account: these run with callers made for them. */
const SELF_ENDING = new Set(['GET /api/user/logout', 'DELETE /api/user/self']);
/** Deletions of the objects the others aim at run last (B's account last of all). */
const order = (r: Route) => (r.key === 'DELETE /api/user/:id' ? 3 : SELF_ENDING.has(r.key) ? 2 : r.method === 'DELETE' ? 1 : 0);

describe('generated access matrix: every route × every caller', () => {
  let w: AccessWorld;

  beforeAll(async () => {
    w = await startAccessWorld();
  }, 60_000);
  afterAll(() => w?.close());

  function pathOf(url: string): string {
    const b = w.b;
    const owned: Array<[RegExp, string | number]> = [
      [/^\/api\/user\/:id$/, b.userId],
      [/^\/api\/token\/:id$/, b.tokenId],
      [/^\/api\/channel\/.*:id$/, w.channelId],
      [/^\/api\/redemption\/:id$/, w.redemptionId],
      [/\/mj\/.*:id/, b.mjId],
      [/^\/suno\/fetch\/:id$/, b.taskId],
    ];
    let path = url;
    for (const [re, value] of owned) if (re.test(url)) path = path.replace(':id', encodeURIComponent(String(value)));
    return path
      .replace(':mode', 'fast')
      .replace('/suno/submit/:action', '/suno/submit/music')
      .replace(':action', 'gpt-4o-mini:generateContent')
      .replace(':model', 'gpt-4o-mini')
      .replace(/\*$/, 'file-abc');
  }

  /** Bodies for the routes whose schema-derived sample could hit an object the matrix still needs. */
  function bodyOf(r: Route): unknown {
    const b = w.b;
    const fixed: Record<string, unknown> = {
      'POST /api/user/manage': { id: b.userId, action: 'enable' },
      'PUT /api/user/': { id: b.userId, display_name: 'matrix' },
      'PUT /api/user/self': { display_name: 'matrix' },
      'PUT /api/option/': { key: 'Notice', value: 'matrix' },
      'PUT /api/token/': { id: b.tokenId, name: 'matrix' },
      'POST /api/channel/batch': { ids: [999_999] },
      'POST /v1/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      'POST /pg/chat/completions': { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
    };
    if (r.key in fixed) return fixed[r.key];
    if (r.method === 'GET' || r.method === 'HEAD' || r.method === 'OPTIONS') return undefined;
    return r.contract?.body ? validSample(r.contract.body) : r.method === 'DELETE' ? undefined : {};
  }

  function queryOf(r: Route): string {
    const fixed: Record<string, string> = {
      'GET /api/topup/self': `?trade_no=${w.b.tradeNo}`,
      'GET /api/log/token': `?key=sk-${w.b.tokenKey}`,
      'DELETE /api/log/': `?target_timestamp=1`,
    };
    if (r.key in fixed) return fixed[r.key]!;
    return r.contract?.querystring ? toQuery(validSample(r.contract.querystring)) : '';
  }

  async function freshCaller(who: Caller, tag: string): Promise<ApiClient> {
    const url = w.h.server.url;
    if (who === 'anonymous') return new ApiClient(url);
    if (who === 'token') return w.clients.token;
    if (who === 'root') return rootClient(url);
    const name = `f_${who.slice(0, 2)}_${tag.slice(0, 3)}`;
    const c = await newUser(url, name);
    if (who === 'admin') {
      await w.h.root.post('/api/user/manage', { id: c.userId, action: 'promote' });
      await c.login(name, w.password);
      expect((await c.get('/api/user/self')).body.data.role).toBe(Role.Admin);
    }
    return c;
  }

  it('covers exactly the routes the server registers', () => {
    const registered = new Set(w.h.server.routes.flatMap((r) => [r.method].flat().filter((m) => m !== 'HEAD').map((m) => routeKey(m, r.url))));
    expect([...registered].filter((k) => !ROUTES.some((r) => r.key === k))).toEqual([]);
    expect(ROUTES.filter((r) => !registered.has(r.key)).map((r) => r.key)).toEqual([]);
  });

  for (const r of [...ROUTES].sort((x, y) => order(x) - order(y))) {
    it(`${r.key} (${r.auth})`, async () => {
      const path = pathOf(r.url) + queryOf(r);
      const body = bodyOf(r);
      const wrong: string[] = [];
      // Refused callers first, so an allowed call (a delete) cannot change what they would see.
      const callers = [...CALLERS].sort((x, y) => Number(ALLOWED[r.auth].includes(x)) - Number(ALLOWED[r.auth].includes(y)));
      for (const who of callers) {
        const client = SELF_ENDING.has(r.key) ? await freshCaller(who, r.method.toLowerCase()) : w.clients[who];
        const res = await client.call(r.method, path, body);
        const shouldPass = ALLOWED[r.auth].includes(who);
        const got = `${res.status} ${JSON.stringify(res.body).slice(0, 160)}`;
        // 501 (not implemented) and 503 (no channel) are answers; a 500 is a crash.
        if (shouldPass && (refused(res) || res.status === 500)) wrong.push(`${who} must pass, got ${got}`);
        if (!shouldPass && !refused(res)) wrong.push(`${who} must be refused, got ${got}`);
      }
      expect(wrong, `${r.method} ${path}`).toEqual([]);
    });
  }
});
