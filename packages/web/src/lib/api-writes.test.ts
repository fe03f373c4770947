import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { mockApi, ok, server } from '../test/mock-api';
import { ApiError, call } from './api';
import * as feedback from './feedback';
import { rateLimitedUntil } from './rate-limit-state';

afterEach(() => vi.restoreAllMocks());

describe('writes sent twice at once (a double click)', () => {
  it('share one request with one Idempotency-Key; different writes are sent each', async () => {
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    const api = mockApi({
      'POST /api/channel/batch': async (req) => {
        await gate;
        return ok(req.body?.ids?.length ?? 0);
      },
    });
    const body = { ids: [1, 2] };
    const first = call('POST /api/channel/batch', { body });
    const second = call('POST /api/channel/batch', { body });
    const other = call('POST /api/channel/batch', { body: { ids: [3] } });
    release();
    await expect(Promise.all([first, second, other])).resolves.toEqual([2, 2, 1]);
    const sent = api.find('POST', '/api/channel/batch');
    expect(sent).toHaveLength(2);
    expect(sent[0].headers['idempotency-key']).toMatch(/^mg-[A-Za-z0-9]{24}$/);
    expect(sent[1].headers['idempotency-key']).not.toBe(sent[0].headers['idempotency-key']);
    // Done: the same write later is a new submission.
    await call('POST /api/channel/batch', { body });
    expect(api.find('POST', '/api/channel/batch')).toHaveLength(3);
  });
});

describe('429 with Retry-After', () => {
  it('says when to retry and marks the lists as rate limited', async () => {
    await i18n.changeLanguage('en');
    const toasts = vi.spyOn(feedback, 'showError').mockImplementation(() => {});
    server.use(http.get('/api/notice', () => HttpResponse.json({ success: false, message: 'x' }, { status: 429, headers: { 'Retry-After': '42' } })));
    const before = Date.now();
    await expect(call('GET /api/notice')).rejects.toBeInstanceOf(ApiError);
    expect(toasts.mock.calls[0]?.[0]).toBe('Too many requests, retry in 42 s');
    expect(rateLimitedUntil()).toBeGreaterThanOrEqual(before + 42_000);
    await i18n.changeLanguage('zh');
  });
});
