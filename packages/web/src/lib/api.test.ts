import { http, HttpResponse } from 'msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { done, fail, mockApi, ok, server, status } from '../test/mock-api';
import { ApiError, browser, buildUrl, call, callEnvelope, routePath } from './api';
import * as feedback from './feedback';

function spyToasts() {
  return vi.spyOn(feedback, 'showError').mockImplementation(() => {});
}

afterEach(() => vi.restoreAllMocks());

describe('buildUrl', () => {
  it('keeps empty filters like the reference and drops undefined ones', () => {
    expect(buildUrl('/api/token/search', { keyword: '', token: 'abc', x: undefined })).toBe(
      '/api/token/search?keyword=&token=abc',
    );
  });
});

describe('routePath', () => {
  it('fills path parameters from the contract key, with the reference’s trailing slash when asked', () => {
    expect(routePath('GET /api/user/:id', { id: 7 })).toEqual({ method: 'GET', path: '/api/user/7' });
    expect(routePath('DELETE /api/token/:id', { id: 7 }, true)).toEqual({ method: 'DELETE', path: '/api/token/7/' });
    expect(routePath('GET /api/token/', undefined, true)).toEqual({ method: 'GET', path: '/api/token/' });
  });
});

describe('api client', () => {
  it('sends New-Api-User -1 before login and the user id after, plus no-store', async () => {
    const api = mockApi({ 'GET /api/user/aff': () => ok('ABCD') });
    await call('GET /api/user/aff');
    localStorage.setItem('user', JSON.stringify({ id: 7, username: 'u', role: 1 }));
    await call('GET /api/user/aff');
    const [before, after] = api.find('GET', '/api/user/aff');
    expect(before.headers['new-api-user']).toBe('-1');
    expect(after.headers['new-api-user']).toBe('7');
    expect(after.headers['cache-control']).toBe('no-store');
  });

  it('unwraps the envelope and sends JSON bodies and queries', async () => {
    const api = mockApi({ 'POST /api/channel/batch': (req) => ok(req.body?.ids?.length ?? 0) });
    await expect(call('POST /api/channel/batch', { body: { ids: [1, 2] } })).resolves.toBe(2);
    expect(api.calls[0].headers['content-type']).toBe('application/json');
    expect(api.calls[0].body).toEqual({ ids: [1, 2] });
    mockApi({ 'GET /api/token/': (req) => ok(req.query.get('size') === '5' ? [] : []) });
    await expect(call('GET /api/token/', { query: { p: 0, size: 5 } })).resolves.toEqual([]);
  });

  it('returns the whole answer where fields sit next to data', async () => {
    mockApi({ 'GET /api/channel/test/:id': (req) => ({ success: true, message: '', time: Number(req.params.id) / 10 }) });
    await expect(callEnvelope('GET /api/channel/test/:id', { params: { id: 3 }, query: { model: '' } })).resolves.toEqual({
      success: true,
      message: '',
      time: 0.3,
    });
  });

  it('resolves actions without data to undefined', async () => {
    mockApi({ 'DELETE /api/token/:id': () => done });
    await expect(call('DELETE /api/token/:id', { params: { id: 1 }, slash: true })).resolves.toBeUndefined();
  });

  it('toasts and throws the server message when success is false', async () => {
    mockApi({ 'GET /api/user/self': () => fail('用户名或密码错误') });
    const toasts = spyToasts();
    await expect(call('GET /api/user/self')).rejects.toMatchObject({ message: '用户名或密码错误', status: 200 });
    expect(toasts).toHaveBeenCalledWith('用户名或密码错误');
  });

  it('stays quiet when asked to', async () => {
    mockApi({ 'GET /api/user/self': () => fail('nope') });
    const toasts = spyToasts();
    await expect(call('GET /api/user/self', { silent: true })).rejects.toBeInstanceOf(ApiError);
    expect(toasts).not.toHaveBeenCalled();
  });

  it('sends the browser to /login?expired=true on 401 and forgets the stale user', async () => {
    mockApi({ 'GET /api/user/self': () => status(401, fail('unauthorised')) });
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'gone', role: 1 }));
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    await expect(call('GET /api/user/self')).rejects.toMatchObject({ status: 401 });
    expect(redirect).toHaveBeenCalledWith('/login?expired=true');
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('uses the spec §8 messages for 429, 500 and 405 in the current language', async () => {
    mockApi({
      'GET /api/notice': () => status(429),
      'GET /api/about': () => status(500),
      'GET /api/user/aff': () => status(405),
      'GET /api/user/token': () => status(418, { message: 'teapot' }),
    });
    const toasts = spyToasts();
    await expect(call('GET /api/notice')).rejects.toBeInstanceOf(ApiError);
    await expect(call('GET /api/about')).rejects.toBeInstanceOf(ApiError);
    await expect(call('GET /api/user/aff')).rejects.toBeInstanceOf(ApiError);
    await expect(call('GET /api/user/token')).rejects.toBeInstanceOf(ApiError);
    expect(toasts.mock.calls.map((c) => c[0])).toEqual([
      '错误：请求次数过多，请稍后再试！',
      '错误：服务器内部错误，请联系管理员！',
      '本站仅作演示之用，无服务端！',
      '错误：teapot',
    ]);

    toasts.mockClear();
    await i18n.changeLanguage('en');
    await expect(call('GET /api/notice')).rejects.toBeInstanceOf(ApiError);
    await expect(call('GET /api/about')).rejects.toBeInstanceOf(ApiError);
    expect(toasts.mock.calls.map((c) => c[0])).toEqual([
      'error: too many requests, please try later',
      'error: internal server error, please contact administrator',
    ]);
  });

  it('reports an unreachable server', async () => {
    server.use(http.get('/api/about', () => HttpResponse.error()));
    const toasts = spyToasts();
    await expect(call('GET /api/about')).rejects.toMatchObject({ status: 0 });
    expect(toasts).toHaveBeenCalledWith(expect.stringMatching(/^错误：.*fetch/i));
  });
});
