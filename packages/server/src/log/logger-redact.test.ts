import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { LOG_REDACT } from './logger.js';

describe('log redaction', () => {
  it('replaces credentials at the places the server logs headers and bodies, and leaves the rest', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const log = pino({ redact: LOG_REDACT }, sink).child({ reqId: 'r1' });
    log.warn({
      authorization: 'Bearer sk-top',
      headers: { authorization: 'Bearer sk-a', 'x-api-key': 'k1', 'content-type': 'application/json' },
      req: { headers: { cookie: 'session=s1', 'mj-api-secret': 'mj1' }, body: { password: 'p1', username: 'alice' } },
      upstream: { headers: { 'x-goog-api-key': 'g1' } },
      user: { access_token: 't1', id: 3 },
    });
    type Headers = Record<string, string>;
    const line = JSON.parse(lines[0]!) as { authorization: string; headers: Headers; req: { headers: Headers; body: Headers }; upstream: { headers: Headers }; user: Record<string, unknown>; reqId: string };
    expect(line.authorization).toBe('[Redacted]');
    expect(line.headers).toEqual({ authorization: '[Redacted]', 'x-api-key': '[Redacted]', 'content-type': 'application/json' });
    expect(line.req.headers).toEqual({ cookie: '[Redacted]', 'mj-api-secret': '[Redacted]' });
    expect(line.req.body).toEqual({ password: '[Redacted]', username: 'alice' });
    expect(line.upstream.headers['x-goog-api-key']).toBe('[Redacted]');
    expect(line.user).toEqual({ access_token: '[Redacted]', id: 3 });
    expect(line.reqId).toBe('r1');
    for (const secret of ['sk-top', 'sk-a', 'k1', 's1', 'mj1', 'p1', 'g1', 't1']) expect(lines[0]).not.toContain(`"${secret}`);
  });
});
