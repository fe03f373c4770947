import { apiRoutes, type RouteContract } from '@modelgate/shared/api';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../ledger/reconcile.js';
import { reviveCallers, startAccessWorld, type AccessWorld, type Caller } from '../test-support/access-world.js';
import { capturePino } from '../test-support/capture-logger.js';
import { anyJson, mutatedArbitrary, toQuery } from '../test-support/schema-arbitrary.js';
import type { RouteAccessLevel } from './route-access.js';

/**
 * Issue 22 item 5: property-based fuzzing of every route of the API and the relay over real HTTP.
 * Each route gets FUZZ_RUNS requests (default 100; an operator runs 10 000 with the env variable)
 * built from its contract's schemas — valid-shaped values, the same mutated (fields dropped, wrong
 * types, hostile strings, prototype keys, deep nesting), and arbitrary text — sent by a caller the
 * route lets in. Never a 500, never a hang, no unhandled rejection, and no user's balance moves
 * (quota + used quota per user, and the ledger reconciles) except through the one route whose
 * purpose is to set a balance. Seed: FUZZ_SEED (fixed by default; fast-check prints it on failure).
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 100);
const SEED = Number(process.env.FUZZ_SEED ?? 22_05);
const REQUEST_TIMEOUT_MS = 15_000;

/** Routes that exist to set a balance (an admin editing a user's quota): the ledger still has to reconcile. */
const SETS_BALANCES = new Set(['PUT /api/user/']);

const CALLER_OF: Record<RouteAccessLevel, Caller> = { public: 'anonymous', user: 'user', admin: 'admin', root: 'root', token: 'token', secret: 'anonymous' };

type Route = { key: string; method: string; url: string; contract: RouteContract };
const ROUTES: Route[] = Object.entries(apiRoutes as Record<string, RouteContract>).map(([key, contract]) => ({
  key,
  contract,
  method: key.slice(0, key.indexOf(' ')),
  url: key.slice(key.indexOf(' ') + 1),
}));
/** Routes that end the caller's session or account run last (their callers are revived after each). */
const LAST = new Set(['GET /api/user/logout', 'DELETE /api/user/self', 'DELETE /api/user/:id', 'POST /api/user/manage']);

interface FuzzRequest {
  path: string;
  body?: string;
  contentType?: string;
}

type Json = ReturnType<typeof JSON.parse>;

function requestArbitrary(r: Route): fc.Arbitrary<FuzzRequest> {
  const c = r.contract;
  const names = [...r.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const params = c.params ? mutatedArbitrary(c.params) : fc.constant<Json>({});
  const segment = fc.oneof(fc.constantFrom('1', '0', '-1', 'fast', 'gpt-4o-mini', 'gpt-4o-mini:generateContent', '%00', '..', '9'.repeat(30)), fc.string({ maxLength: 12 }));
  const path = fc.tuple(params, fc.array(segment, { minLength: names.length + 1, maxLength: names.length + 1 })).map(([p, extra]) => {
    let out = r.url;
    names.forEach((n, i) => {
      const v = p && typeof p === 'object' && !Array.isArray(p) && n in p ? (p as Record<string, Json>)[n] : extra[i];
      out = out.replace(`:${n}`, encodeURIComponent(typeof v === 'object' ? JSON.stringify(v) : String(v)) || 'x');
    });
    return out.replace(/\*$/, encodeURIComponent(extra[names.length]!) || 'x');
  });
  const query = c.querystring ? fc.oneof(mutatedArbitrary(c.querystring).map(toQuery), fc.string({ maxLength: 30 }).map((s) => `?${s}`)) : fc.constantFrom('', '?x=1');
  if (r.method === 'GET' || r.method === 'HEAD' || r.method === 'OPTIONS' || (r.method === 'DELETE' && !c.body)) {
    return fc.tuple(path, query).map(([p, q]) => ({ path: p + q }));
  }
  // Relay bodies name a model the test channel serves half of the time, so the pipeline runs on.
  const served = (v: Json) => (c.auth === 'token' && v && typeof v === 'object' && !Array.isArray(v) ? { ...v, model: 'gpt-4o-mini' } : v);
  const json = fc.oneof(mutatedArbitrary(c.body), mutatedArbitrary(c.body).map(served), anyJson);
  const body = fc.oneof(
    { weight: 8, arbitrary: json.map((v) => ({ body: JSON.stringify(v) ?? 'null', contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 200 }).map((s) => ({ body: s, contentType: 'application/json' })) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }).map((s) => ({ body: s, contentType: 'text/plain' })) },
  );
  return fc.tuple(path, query, body).map(([p, q, b]) => ({ path: p + q, ...b }));
}

describe('fuzzing every route over HTTP', () => {
  let w: AccessWorld;
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  // The server's error lines, so a 500 anywhere (a fuzzed call or a helper's) says what threw.
  const serverLog = capturePino('error');
  const serverErrors = () => serverLog.lines.map((l) => `${String(l.msg)}: ${JSON.stringify(l.err ?? l).slice(0, 1500)}`);

  beforeAll(async () => {
    process.on('unhandledRejection', onUnhandled);
    w = await startAccessWorld({}, serverLog.log);
  }, 60_000);
  afterAll(async () => {
    process.off('unhandledRejection', onUnhandled);
    await w?.close();
  });

  /** quota + used_quota of every user: a relayed call moves quota into used quota, nothing else moves either. */
  async function balances(): Promise<Map<number, number>> {
    const rows = await w.h.server.ctx.db.db.selectFrom('users').select(['id', 'quota', 'used_quota']).execute();
    return new Map(rows.map((u) => [Number(u.id), Number(u.quota) + Number(u.used_quota)]));
  }

  async function send(r: Route, req: FuzzRequest): Promise<{ status: number; text: string }> {
    const client = w.clients[CALLER_OF[r.contract.auth as RouteAccessLevel]];
    const headers: Record<string, string> = { 'accept-language': 'en', 'new-api-user': String(client.userId ?? -1) };
    if (client.cookie) headers.cookie = client.cookie;
    if (client.accessToken) headers.authorization = client.accessToken;
    if (req.contentType) headers['content-type'] = req.contentType;
    const res = await fetch(`${w.h.server.url}${req.path}`, { method: r.method, headers, body: req.body, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
    return { status: res.status, text: await res.text() };
  }

  for (const r of [...ROUTES].sort((x, y) => Number(LAST.has(x.key)) - Number(LAST.has(y.key)))) {
    it(`${r.key} (${RUNS} requests)`, async () => {
      serverLog.lines.length = 0;
      await reviveCallers(w);
      const before = await balances();
      await fc
        .assert(
          fc.asyncProperty(requestArbitrary(r), async (req) => {
            const res = await send(r, req);
            expect(res.status, `${r.method} ${req.path} ${req.body?.slice(0, 300) ?? ''} → ${res.text.slice(0, 300)}`).not.toBe(500);
            expect(res.status).toBeLessThan(600);
            if (LAST.has(r.key)) await reviveCallers(w);
          }),
          { numRuns: RUNS, seed: SEED, endOnFailure: true },
        )
        .catch((e: unknown) => {
          throw new Error(`${String(e)}\nserver errors: ${serverErrors().join('\n') || 'none'}`, { cause: e });
        });
      expect(serverErrors(), 'errors the server logged').toEqual([]);
      expect(unhandled).toEqual([]);
      const after = await balances();
      if (!SETS_BALANCES.has(r.key)) {
        const moved = [...before].filter(([id, total]) => after.has(id) && after.get(id) !== total);
        expect(moved, 'users whose quota + used quota changed').toEqual([]);
      }
      const ledger = await reconcile(w.h.server.ctx.db.db);
      expect(ledger.ok).toBe(true);
    }, 120_000);
  }
});
