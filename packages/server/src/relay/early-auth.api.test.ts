import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../test-support/test-server.js';

/**
 * `/mj/*` and `/suno/*` check the API key before they read a body: a caller without a valid key
 * announcing a large body gets its refusal while the body is still unsent (if the server waited
 * for the body, no answer would come and the test would time out).
 */
describe('task relays refuse a bad key before reading the body', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(() => srv?.close());

  function answerWhileBodyPending(path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
    const url = new URL(path, srv.url);
    return new Promise((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(15_000_000), ...headers } }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body });
          req.destroy();
        });
      });
      req.on('error', (err) => (err.message.includes('socket hang up') || (err as { code?: string }).code === 'ECONNRESET' ? undefined : reject(err)));
      // A few bytes of the announced 15 MB, then nothing.
      req.write('{"prompt":"');
    });
  }

  it.each([
    ['/mj/submit/imagine', { 'mj-api-secret': 'sk-nobody' }, { code: 401 }],
    ['/mj-fast/mj/submit/imagine', {}, { code: 401 }],
    ['/suno/submit/music', { authorization: 'Bearer sk-nobody' }, { data: null }],
  ] as const)('%s', async (path, headers, shape) => {
    const res = await answerWhileBodyPending(path, headers);
    expect(res.status).toBe(401);
    expect(JSON.parse(res.body)).toMatchObject(shape);
  }, 15_000);
});
