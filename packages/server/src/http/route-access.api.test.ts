import { apiRoutes } from '@modelgate/shared/api';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { declaredAccess, routeKey, SERVER_ROUTES } from './route-access.js';

/**
 * Issue 22 item 2: every route the server registers states who may call it — the API's routes in
 * their contract, the rest in http/route-access.ts. A route added without either fails here.
 */
describe('declared access of every registered route', () => {
  let srv: TestServer;
  let dist: string;

  beforeAll(async () => {
    // A built console, so its static routes are registered too.
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dist-'));
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>x</title>');
    fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'void 0;');
    fs.writeFileSync(path.join(dist, 'favicon.ico'), '');
    srv = await startTestServer({ env: { WEB_DIST_DIR: dist } });
  });
  afterAll(async () => {
    await srv?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  const methodsOf = () => srv.routes.flatMap((r) => [r.method].flat().map((m) => ({ method: m, route: r })));

  it('every method of every registered route states its access (100 %)', () => {
    const all = methodsOf();
    const undeclared = all.filter(({ method, route }) => !declaredAccess(method, route, srv.ctx.config.webDistDir)).map(({ method, route }) => `${method} ${route.url}`);
    expect(undeclared).toEqual([]);
    // The relay, the task relays, OAuth, probes and the console are all in the list.
    const keys = new Set(all.map(({ method, route }) => routeKey(method, route.url)));
    for (const k of ['POST /v1/chat/completions', 'POST /v1beta/models/:action', 'POST /mj-:mode/mj/submit/imagine', 'POST /suno/submit/:action', 'POST /pg/chat/completions', 'GET /api/oauth/github', 'GET /healthz', 'GET /metrics', 'GET /index.html', 'GET /assets/app.js']) {
      expect(keys, k).toContain(k);
    }
    expect(all.length).toBeGreaterThan(Object.keys(apiRoutes).length);
  });

  it('the console files are public and the metrics scrape takes its own secret', async () => {
    const find = (url: string) => srv.routes.find((r) => r.url === url)!;
    expect(declaredAccess('GET', find('/assets/app.js'), srv.ctx.config.webDistDir)).toMatchObject({ auth: 'public', source: 'server' });
    expect(declaredAccess('GET', find('/metrics'), srv.ctx.config.webDistDir)).toMatchObject({ auth: 'secret', source: 'server' });
    expect(declaredAccess('GET', find('/api/user/self'), srv.ctx.config.webDistDir)).toEqual({ auth: 'user', source: 'contract' });
    // Public indeed: no session, no key.
    for (const file of ['/assets/app.js', '/index.html']) expect((await fetch(`${srv.url}${file}`)).status, file).toBe(200);
    // A file elsewhere on disk is not a console file.
    expect(declaredAccess('GET', { method: 'GET', url: '/x.js', config: { file: '/x.js', rootPath: '/elsewhere' } }, srv.ctx.config.webDistDir)).toBeNull();
  });

  it('states nothing twice and nothing stale: every contract and server entry is a registered route', () => {
    const keys = new Set(methodsOf().map(({ method, route }) => routeKey(method, route.url)));
    expect(Object.keys(apiRoutes).filter((k) => !keys.has(k))).toEqual([]);
    expect(Object.keys(SERVER_ROUTES).filter((k) => !keys.has(k))).toEqual([]);
    expect(Object.keys(SERVER_ROUTES).filter((k) => k in apiRoutes)).toEqual([]);
  });
});
