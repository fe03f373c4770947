import fs from 'node:fs';
import { request } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness } from '../test-support/relay-fixtures.js';
import { rootClient } from '../test-support/api-client.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

const API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

/** The API's headers, exactly: what every `/api` and relay answer carries. */
function expectApiHeaders(r: Pick<Response, 'headers'>, what: string): void {
  expect(r.headers.get('content-security-policy'), what).toBe(API_CSP);
  expect(r.headers.get('x-frame-options'), what).toBe('DENY');
  expect(r.headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(r.headers.get('referrer-policy'), what).toBe('strict-origin-when-cross-origin');
  expect(r.headers.get('strict-transport-security'), what).toBeNull();
}

/**
 * Issue 10: the console had no CSP, X-Frame-Options or X-Content-Type-Options. Issue 29: the relay
 * prefixes got nosniff only, so an upstream body passed on as HTML or SVG (a task image) was a
 * live document on the console's origin.
 */
describe('security headers', () => {
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

  const directives = (csp: string | null) => new Map((csp ?? '').split(';').map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

  it('gives console pages and assets a CSP that fits the built console, and forbids framing', async () => {
    for (const p of ['/', '/login', '/token', '/index.html', '/assets/app.js']) {
      const r = await fetch(srv.url + p);
      expect(r.status, p).toBe(200);
      const csp = directives(r.headers.get('content-security-policy'));
      expect(csp.get('default-src'), p).toEqual(["'self'"]);
      expect(csp.get('script-src'), p).toContain("'self'");
      expect(csp.get('script-src'), p).not.toContain("'unsafe-inline'");
      expect(csp.get('script-src'), p).not.toContain("'unsafe-eval'");
      // Third-party scripts only while their feature is on (next test).
      expect(csp.get('script-src'), p).toEqual(["'self'"]);
      // antd's CSS-in-JS writes <style> elements and style attributes.
      expect(csp.get('style-src'), p).toEqual(["'self'", "'unsafe-inline'"]);
      expect(csp.get('img-src'), p).toEqual(["'self'", 'data:', 'https:']);
      expect(csp.get('connect-src'), p).toEqual(["'self'"]);
      expect(csp.get('frame-ancestors'), p).toEqual(["'none'"]);
      expect(csp.get('object-src'), p).toEqual(["'none'"]);
      expect(r.headers.get('x-frame-options'), p).toBe('DENY');
      expect(r.headers.get('x-content-type-options'), p).toBe('nosniff');
      expect(r.headers.get('referrer-policy'), p).toBe('strict-origin-when-cross-origin');
    }
  });

  it('allows the Turnstile and Telegram widget scripts only while those features are on', async () => {
    const scriptSrc = async () => directives((await fetch(`${srv.url}/login`)).headers.get('content-security-policy')).get('script-src');
    const root = await rootClient(srv.url);
    const set = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body.success, key).toBe(true);
    await set('TelegramBotName', 'csp_bot');
    await set('TelegramBotToken', '1:csp-token');
    await set('TelegramOAuthEnabled', 'true');
    // Telegram's login widget (sign-in and bindings) is telegram.org's script.
    expect(await scriptSrc()).toEqual(["'self'", 'https://telegram.org']);
    await set('TurnstileSiteKey', 'site-key');
    await set('TurnstileSecretKey', 'secret-key');
    await set('TurnstileCheckEnabled', 'true');
    expect(await scriptSrc()).toEqual(["'self'", 'https://challenges.cloudflare.com', 'https://telegram.org']);
    await set('TelegramOAuthEnabled', 'false');
    await set('TurnstileCheckEnabled', 'false');
    expect(await scriptSrc()).toEqual(["'self'"]);
    // No HSTS over plain http (the https case: http/sign-in-sessions.api.test.ts).
    expect((await fetch(`${srv.url}/login`)).headers.get('strict-transport-security')).toBeNull();
  });

  it('lets the console post forms only to itself and to the payment gateway once one is set', async () => {
    const formAction = async () => directives((await fetch(`${srv.url}/topup`)).headers.get('content-security-policy')).get('form-action');
    expect(await formAction()).toEqual(["'self'"]);
    const root = await rootClient(srv.url);
    expect((await root.put('/api/option/', { key: 'ServerAddress', value: 'https://gate.example.com' })).body.success).toBe(true);
    expect((await root.put('/api/option/', { key: 'PayAddress', value: 'https://pay.example.com/epay/' })).body.success).toBe(true);
    expect(await formAction()).toEqual(["'self'", 'https://pay.example.com']);
    expect((await root.put('/api/option/', { key: 'PayAddress', value: '' })).body.success).toBe(true);
    expect(await formAction()).toEqual(["'self'"]);
  });

  it('gives API answers, errors included, nosniff and a deny-all CSP', async () => {
    for (const p of ['/api/status', '/api/user/self', '/api/nope']) expectApiHeaders(await fetch(srv.url + p), p);
  });

  it('gives every relay answer the API\u2019s headers: /v1 (JSON, stream, errors), /v1beta, /dashboard, /pg, /mj, /mj-{mode}, /suno', async () => {
    const noKey = await fetch(`${srv.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(noKey.status).toBe(401);
    expectApiHeaders(noKey, 'POST /v1/chat/completions without a key');
    const answers: Array<[string, Response]> = [
      ['GET /v1/models', await fetch(`${srv.url}/v1/models`)],
      ['GET /v1/nope', await fetch(`${srv.url}/v1/nope`)],
      ['POST /v1beta/models/x:generateContent', await fetch(`${srv.url}/v1beta/models/x:generateContent`, { method: 'POST', body: '{}' })],
      ['GET /dashboard/billing/subscription', await fetch(`${srv.url}/dashboard/billing/subscription`)],
      ['POST /pg/chat/completions', await fetch(`${srv.url}/pg/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })],
      ['GET /mj/task/x/fetch', await fetch(`${srv.url}/mj/task/x/fetch`)],
      ['POST /mj/notify', await fetch(`${srv.url}/mj/notify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })],
      ['GET /mj/image/x', await fetch(`${srv.url}/mj/image/x`)],
      ['POST /mj-fast/mj/submit/imagine', await fetch(`${srv.url}/mj-fast/mj/submit/imagine`, { method: 'POST', body: '{}' })],
      ['POST /suno/submit/music', await fetch(`${srv.url}/suno/submit/music`, { method: 'POST', body: '{}' })],
      ['GET /suno/fetch/x', await fetch(`${srv.url}/suno/fetch/x`)],
    ];
    for (const [what, r] of answers) {
      expect(r.status, what).toBeGreaterThanOrEqual(400);
      expectApiHeaders(r, what);
    }

    const h = await startRelayHarness();
    try {
      await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
      const c = await addCaller(h);
      const auth = { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' };
      const models = await fetch(`${h.server.url}/v1/models`, { headers: auth });
      expect(models.status).toBe(200);
      expectApiHeaders(models, 'GET /v1/models with a key');
      const chat = (stream: boolean) => fetch(`${h.server.url}/v1/chat/completions`, { method: 'POST', headers: auth, body: JSON.stringify({ model: 'gpt-4', stream, messages: [{ role: 'user', content: 'Hi' }] }) });
      const plain = await chat(false);
      expect(plain.headers.get('content-type')).toBe('application/json');
      expectApiHeaders(plain, 'chat');
      expect(((await plain.json()) as { object: string }).object).toBe('chat.completion');
      // Written on the raw socket after a hijack: the headers were set on it before.
      const stream = await chat(true);
      expect(stream.headers.get('content-type')).toBe('text/event-stream');
      expectApiHeaders(stream, 'chat stream');
      expect(await stream.text()).toContain('[DONE]');
      // The realtime upgrade's refusal is written on the socket the upgrade came in on.
      const refused = await new Promise<{ status: number; headers: Record<string, string | string[] | undefined> }>((resolve, reject) => {
        const req = request(`${h.server.url}/v1/realtime?model=gpt-4o-realtime-preview`, { headers: { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } });
        req.on('response', (res) => {
          res.resume();
          resolve({ status: res.statusCode ?? 0, headers: res.headers });
        });
        req.on('upgrade', () => reject(new Error('upgraded without a key')));
        req.on('error', reject);
        req.end();
      });
      expect(refused.status).toBe(401);
      expectApiHeaders({ headers: new Headers(refused.headers as Record<string, string>) }, 'realtime upgrade without a key');
    } finally {
      await h.close();
    }
  });
});
