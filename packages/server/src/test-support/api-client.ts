/**
 * A console-like HTTP client for tests: keeps the session cookie, sends `New-Api-User` like the
 * reference console, and returns status plus the parsed envelope.
 */
export interface ApiResult<T = any> {
  status: number;
  body: { success: boolean; message: string; data?: T } & Record<string, any>;
  headers: Headers;
}

export class ApiClient {
  cookie = '';
  userId: number | null = null;
  accessToken = '';
  lang = 'en';

  constructor(readonly baseUrl: string) {}

  async call<T = any>(method: string, path: string, body?: unknown, extraHeaders: Record<string, string> = {}): Promise<ApiResult<T>> {
    const headers: Record<string, string> = {
      'Cache-Control': 'no-store',
      'Accept-Language': this.lang,
      'New-Api-User': String(this.userId ?? -1),
      ...extraHeaders,
    };
    if (this.cookie) headers.Cookie = this.cookie;
    if (this.accessToken) headers.Authorization = this.accessToken;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const setCookie = res.headers.get('set-cookie');
    if (setCookie) {
      const m = /session=([^;]*)/.exec(setCookie);
      if (m) this.cookie = m[1] ? `session=${m[1]}` : '';
    }
    const text = await res.text();
    let parsed: any = {};
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: res.status, body: parsed, headers: res.headers };
  }

  get<T = any>(path: string) {
    return this.call<T>('GET', path);
  }
  post<T = any>(path: string, body?: unknown) {
    return this.call<T>('POST', path, body ?? {});
  }
  put<T = any>(path: string, body?: unknown) {
    return this.call<T>('PUT', path, body ?? {});
  }
  del<T = any>(path: string) {
    return this.call<T>('DELETE', path);
  }

  async login(username: string, password: string): Promise<ApiResult> {
    const r = await this.post('/api/user/login', { username, password });
    if (r.body.success) this.userId = r.body.data.id;
    return r;
  }
}

/** Registers and logs in a fresh user; returns its client. */
export async function newUser(baseUrl: string, username: string, password = 'password123'): Promise<ApiClient> {
  const c = new ApiClient(baseUrl);
  const reg = await c.post('/api/user/register', { username, password, password2: password });
  if (!reg.body.success) throw new Error(`register ${username} failed: ${reg.body.message}`);
  const login = await c.login(username, password);
  if (!login.body.success) throw new Error(`login ${username} failed: ${login.body.message}`);
  return c;
}

export async function rootClient(baseUrl: string): Promise<ApiClient> {
  const c = new ApiClient(baseUrl);
  const r = await c.login('root', '123456');
  if (!r.body.success) throw new Error(`root login failed: ${r.body.message}`);
  return c;
}
