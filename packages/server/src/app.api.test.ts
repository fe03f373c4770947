import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient } from './test-support/api-client.js';
import { startTestServer, type TestServer } from './test-support/test-server.js';

describe('console serving and routing', () => {
  let srv: TestServer;
  let dist: string;

  beforeAll(async () => {
    dist = fs.mkdtempSync(path.join(os.tmpdir(), 'mg-dist-'));
    fs.writeFileSync(path.join(dist, 'index.html'), '<!doctype html><title>ModelGate console</title>');
    fs.mkdirSync(path.join(dist, 'assets'));
    fs.writeFileSync(path.join(dist, 'assets', 'app.js'), 'console.log(1)');
    srv = await startTestServer({ env: { WEB_DIST_DIR: dist } });
  });
  afterAll(async () => {
    await srv?.close();
    fs.rmSync(dist, { recursive: true, force: true });
  });

  it('serves index.html for console routes with no-cache, and assets with a long cache', async () => {
    for (const p of ['/', '/login', '/token', '/user/edit/3']) {
      const r = await fetch(srv.url + p);
      expect(r.status, p).toBe(200);
      expect(await r.text()).toContain('ModelGate console');
      expect(r.headers.get('cache-control')).toBe('no-cache');
    }
    const js = await fetch(`${srv.url}/assets/app.js`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toContain('max-age=604800');
  });

  it('never answers API, relay or asset paths with the console', async () => {
    for (const p of ['/api/nope', '/v1/nope', '/pg/nope', '/mj/nope', '/suno/nope', '/assets/missing.js']) {
      const r = await fetch(srv.url + p);
      expect(r.status, p).toBe(404);
      const body = (await r.json()) as { error: { message: string; type: string } };
      expect(body.error.message).toContain('Invalid URL');
      expect(body.error.type).toBe('invalid_request_error');
    }
  });

  it('accepts the console paths with and without a trailing slash', async () => {
    const c = new ApiClient(srv.url);
    await c.login('root', '123456');
    expect((await c.get('/api/option')).body.success).toBe(true);
    expect((await c.get('/api/option/')).body.success).toBe(true);
    expect((await c.get('/api/token?p=0&size=10')).body.success).toBe(true);
    expect((await c.get('/api/status/')).body.success).toBe(true);
  });

  it('turns malformed JSON into an envelope error, not a crash', async () => {
    const r = await fetch(`${srv.url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'en' }, body: '{oops' });
    expect(r.status).toBe(200);
    const body = (await r.json()) as { success: boolean; message: string };
    expect(body.success).toBe(false);
    expect(body.message).toMatch(/Invalid parameter/);
  });
});
