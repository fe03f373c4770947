import { afterEach, describe, expect, it, vi } from 'vitest';
import i18n from '../i18n';
import { fail, mockApi, ok, status } from '../test/mock-api';
import { api, ApiError, browser, buildUrl } from './api';
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

describe('api client', () => {
  it('sends New-Api-User -1 before login and the user id after, plus no-store', async () => {
    const server = mockApi({ 'GET /api/ping': () => ok(1) });
    await api.get('/api/ping');
    localStorage.setItem('user', JSON.stringify({ id: 7, username: 'u', role: 1 }));
    await api.get('/api/ping');
    const [before, after] = server.find('GET', '/api/ping');
    expect(before.headers['New-Api-User']).toBe('-1');
    expect(after.headers['New-Api-User']).toBe('7');
    expect(after.headers['Cache-Control']).toBe('no-store');
  });

  it('unwraps the envelope and sends JSON bodies', async () => {
    const server = mockApi({ 'POST /api/thing': (call) => ok({ echo: call.body }) });
    await expect(api.post('/api/thing', { a: 1 })).resolves.toEqual({ echo: { a: 1 } });
    expect(server.calls[0].headers['Content-Type']).toBe('application/json');
  });

  it('toasts and throws the server message when success is false', async () => {
    mockApi({ 'GET /api/x': () => fail('用户名或密码错误') });
    const toasts = spyToasts();
    await expect(api.get('/api/x')).rejects.toMatchObject({ message: '用户名或密码错误', status: 200 });
    expect(toasts).toHaveBeenCalledWith('用户名或密码错误');
  });

  it('stays quiet when asked to', async () => {
    mockApi({ 'GET /api/x': () => fail('nope') });
    const toasts = spyToasts();
    await expect(api.get('/api/x', undefined, { silent: true })).rejects.toBeInstanceOf(ApiError);
    expect(toasts).not.toHaveBeenCalled();
  });

  it('sends the browser to /login?expired=true on 401 and forgets the stale user', async () => {
    mockApi({ 'GET /api/user/self': () => status(401, fail('unauthorised')) });
    localStorage.setItem('user', JSON.stringify({ id: 3, username: 'gone', role: 1 }));
    const redirect = vi.spyOn(browser, 'redirect').mockImplementation(() => {});
    await expect(api.get('/api/user/self')).rejects.toMatchObject({ status: 401 });
    expect(redirect).toHaveBeenCalledWith('/login?expired=true');
    expect(localStorage.getItem('user')).toBeNull();
  });

  it('uses the spec §8 messages for 429, 500 and 405 in the current language', async () => {
    mockApi({
      'GET /api/429': () => status(429),
      'GET /api/500': () => status(500),
      'GET /api/405': () => status(405),
      'GET /api/418': () => status(418, { message: 'teapot' }),
    });
    const toasts = spyToasts();
    await expect(api.get('/api/429')).rejects.toBeInstanceOf(ApiError);
    await expect(api.get('/api/500')).rejects.toBeInstanceOf(ApiError);
    await expect(api.get('/api/405')).rejects.toBeInstanceOf(ApiError);
    await expect(api.get('/api/418')).rejects.toBeInstanceOf(ApiError);
    expect(toasts.mock.calls.map((call) => call[0])).toEqual([
      '错误：请求次数过多，请稍后再试！',
      '错误：服务器内部错误，请联系管理员！',
      '本站仅作演示之用，无服务端！',
      '错误：teapot',
    ]);

    toasts.mockClear();
    await i18n.changeLanguage('en');
    await expect(api.get('/api/429')).rejects.toBeInstanceOf(ApiError);
    await expect(api.get('/api/500')).rejects.toBeInstanceOf(ApiError);
    expect(toasts.mock.calls.map((call) => call[0])).toEqual([
      'error: too many requests, please try later',
      'error: internal server error, please contact administrator',
    ]);
  });

  it('reports an unreachable server', async () => {
    vi.stubGlobal('fetch', vi.fn(async () => Promise.reject(new TypeError('Failed to fetch'))));
    const toasts = spyToasts();
    await expect(api.get('/api/x')).rejects.toMatchObject({ status: 0 });
    expect(toasts).toHaveBeenCalledWith('错误：Failed to fetch');
  });
});
