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
  /** Cookies other than the session (the OAuth binding cookie), by name. */
  otherCookies: Record<string, string> = {};
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
    const cookies = [this.cookie, ...Object.entries(this.otherCookies).map(([k, v]) => `${k}=${v}`)].filter(Boolean);
    if (cookies.length) headers.Cookie = cookies.join('; ');
    if (this.accessToken) headers.Authorization = this.accessToken;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(this.baseUrl + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    for (const setCookie of res.headers.getSetCookie()) {
      const m = /^([^=]+)=([^;]*)/.exec(setCookie);
      if (!m) continue;
      if (m[1] === 'session') this.cookie = m[2] ? `session=${m[2]}` : '';
      else if (m[2]) this.otherCookies[m[1]!] = m[2];
      else delete this.otherCookies[m[1]!];
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
