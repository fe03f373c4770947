import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { loginOptions, MSG, refused, registerPasskey } from '../../test-support/passkey-ceremonies.js';
import { SoftAuthenticator } from '../../test-support/soft-authenticator.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

/** Where challenges live: the database always, Redis when the run has one. */
const backends = (): Array<[string, Record<string, string>]> => {
  const out: Array<[string, Record<string, string>]> = testDbKinds().map((k) => [k, {}]);
  if (process.env.TEST_REDIS_URL) out.push(['sqlite + redis', { REDIS_CONN_STRING: process.env.TEST_REDIS_URL }]);
  return out;
};

describe.each(backends())('passkeys on two nodes over %s', (label, env) => {
  let a: TestServer;
  let b: TestServer;
  let root: ApiClient;
  const kind = label.startsWith('postgres') ? 'postgres' : label.startsWith('mysql') ? 'mysql' : 'sqlite';
  const suffix = Math.random().toString(36).slice(2, 6);
  // The console's address: the relying party is its host, whichever node a request reaches.
  const SITE = 'https://console.example.test';

  beforeAll(async () => {
    a = await startTestServer({ kind, env });
    b = await startTestServer({ kind, env, alongside: a });
    root = await rootClient(a.url);
    expect((await root.put('/api/option/', { key: 'ServerAddress', value: `${SITE}/` })).body.success).toBe(true);
    // The other node reads it now rather than at its next invalidation.
    await b.ctx.options.reload();
    expect(b.ctx.options.str('ServerAddress')).toBe(SITE);
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it('registers several passkeys per account: discoverable, user verification preferred, the RP from ServerAddress', async () => {
    const owner = await newUser(a.url, `rg${suffix}`);
    const phone = new SoftAuthenticator({ origin: SITE });
    const options = await owner.post('/api/user/passkey/register/options');
    expect(options.body.data).toMatchObject({
      rp: { id: 'console.example.test', name: 'ModelGate' },
      user: { name: `rg${suffix}`, displayName: `rg${suffix}` },
      attestation: 'none',
      authenticatorSelection: { residentKey: 'required', requireResidentKey: true, userVerification: 'preferred' },
      excludeCredentials: [],
    });
    // The user handle is random, not the account's id or name.
    expect(Buffer.from(options.body.data.user.id, 'base64url')).toHaveLength(32);
    // Finished on the other node: the challenge is in the shared store.
    const first = await owner.call('POST', '/api/user/passkey/register', { name: ' Phone ', response: phone.create(options.body.data) });
    expect(first.body).toMatchObject({ success: true, data: { name: 'Phone', last_used_at: 0, backed_up: false, transports: ['internal'] } });
    const laptop = new SoftAuthenticator({ origin: SITE });
    await registerPasskey(owner, laptop, 'Laptop');

    const list = await owner.get('/api/user/passkey');
    expect(list.body.data.map((p: { name: string }) => p.name)).toEqual(['Phone', 'Laptop']);
    // Never the credential id or the public key.
    expect(Object.keys(list.body.data[0]).sort()).toEqual(['backed_up', 'created_at', 'id', 'last_used_at', 'name', 'transports']);
    expect((await owner.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, backup_codes_remaining: 0, enrolment_required: false, passkeys: 2 });

    // The next options exclude both, with the same user handle (one account on one authenticator).
    const again = (await owner.post('/api/user/passkey/register/options')).body.data;
    expect(again.user.id).toBe(options.body.data.user.id);
    expect(again.excludeCredentials.map((c: { id: string }) => c.id).sort()).toEqual([phone.credentials[0]!.id, laptop.credentials[0]!.id].sort());
    expect(() => phone.create(again)).toThrow(/excluded/);
    // The same registration answered twice: its challenge is spent.
    const replay = phone.create({ ...again, excludeCredentials: [] });
    phone.credentials.pop();
    expect((await owner.post('/api/user/passkey/register', { name: 'x', response: replay })).body.success).toBe(true);
    expect((await owner.post('/api/user/passkey/register', { name: 'x', response: replay })).body).toEqual(refused(MSG.expired));
  });

  it('refuses registrations that are not for this site, this account or this ceremony', async () => {
    const owner = await newUser(a.url, `rx${suffix}`);
    const other = await newUser(b.url, `ry${suffix}`);
    const key = new SoftAuthenticator({ origin: SITE });
    const count = async () => (await owner.get('/api/user/passkey')).body.data.length;

    // Another origin (a phishing page proxying the options).
    let opts = (await owner.post('/api/user/passkey/register/options')).body.data;
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: key.create(opts, { origin: 'https://evil.example' }) })).body).toEqual(refused(MSG.failed));
    // Another RP id.
    opts = (await owner.post('/api/user/passkey/register/options')).body.data;
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: key.create(opts, { rpId: 'evil.example' }) })).body).toEqual(refused(MSG.failed));
    // Options issued to another account, answered by this one.
    opts = (await other.post('/api/user/passkey/register/options')).body.data;
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: key.create(opts) })).body).toEqual(refused(MSG.expired));
    // A sign-in challenge is no registration challenge.
    const signIn = await loginOptions(owner);
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: key.create({ ...opts, challenge: signIn.challenge }) })).body).toEqual(refused(MSG.expired));
    // A made-up challenge, a name missing, garbage.
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: key.create({ ...opts, challenge: 'bm90LWlzc3VlZA' }) })).body).toEqual(refused(MSG.expired));
    opts = (await owner.post('/api/user/passkey/register/options')).body.data;
    expect((await owner.post('/api/user/passkey/register', { name: '   ', response: key.create(opts) })).body).toEqual(refused('Enter a name for the passkey'));
    const bad = key.create((await owner.post('/api/user/passkey/register/options')).body.data);
    bad.response.clientDataJSON = Buffer.from('not json').toString('base64url');
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: bad })).body).toEqual(refused('The passkey answer is malformed'));
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: { ...bad, id: 'a'.repeat(5000) } })).body.success).toBe(false);
    expect((await owner.post('/api/user/passkey/register', { name: 'k', response: { ...bad, type: 'password' } })).body.success).toBe(false);
    expect(await count()).toBe(0);

    // An access token (a script's credential) may not mint a sign-in credential.
    const script = new ApiClient(a.url);
    script.accessToken = (await owner.get('/api/user/token')).body.data as string;
    script.userId = owner.userId;
    expect((await script.post('/api/user/passkey/register/options')).body).toEqual(refused(MSG.sessionOnly));
    expect((await script.post('/api/user/passkey/register', { name: 'k', response: key.create(opts) })).body).toEqual(refused(MSG.sessionOnly));
    expect(await count()).toBe(0);
  });

  it('signs in with a passkey alone (no account named), once per challenge, on either node', async () => {
    const owner = await newUser(a.url, `li${suffix}`);
    const auth = new SoftAuthenticator({ origin: SITE });
    const { id } = await registerPasskey(owner, auth, 'Key');

    const browser = new ApiClient(b.url);
    const options = await loginOptions(browser);
    expect(options).toMatchObject({ rpId: 'console.example.test', userVerification: 'preferred' });
    expect(options.allowCredentials ?? []).toEqual([]);
    const answer = auth.get(options);
    const done = await new ApiClient(a.url).post('/api/user/passkey/login', { response: answer });
    expect(done.body).toMatchObject({ success: true, data: { id: owner.userId, username: `li${suffix}`, default_password: false } });
    const session = new ApiClient(a.url);
    session.cookie = done.headers.getSetCookie().find((c) => c.startsWith('session='))!.split(';')[0]!;
    session.userId = owner.userId;
    expect((await session.get('/api/user/self')).body.data.username).toBe(`li${suffix}`);
    // Replayed, on either node: the challenge was taken.
    expect((await browser.post('/api/user/passkey/login', { response: answer })).body).toEqual(refused(MSG.expired));
    expect((await new ApiClient(a.url).post('/api/user/passkey/login', { response: answer })).body).toEqual(refused(MSG.expired));
    // The use is recorded with its counter.
    const row = await a.ctx.db.db.selectFrom('passkeys').select(['counter', 'last_used_at']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(Number(row.counter)).toBe(1);
    expect(Number(row.last_used_at)).toBeGreaterThan(0);

    // Two browsers with one challenge at once: one session.
    const raceOptions = await loginOptions(browser);
    const raced = await Promise.all([a, b].map((srv) => new ApiClient(srv.url).post('/api/user/passkey/login', { response: auth.get(raceOptions) })));
    expect(raced.filter((r) => r.body.success)).toHaveLength(1);
  });

  it('refuses a forged or misdirected sign-in', async () => {
    const owner = await newUser(a.url, `lf${suffix}`);
    const auth = new SoftAuthenticator({ origin: SITE });
    await registerPasskey(owner, auth, 'Key');
    const browser = new ApiClient(a.url);
    const attempt = async (mutate: (r: ReturnType<SoftAuthenticator['get']>) => void, pick: Parameters<SoftAuthenticator['get']>[1] = {}) => {
      const answer = auth.get(await loginOptions(browser), pick);
      mutate(answer);
      return (await browser.post('/api/user/passkey/login', { response: answer })).body;
    };
    // Another page's origin.
    expect(await attempt(() => {}, { origin: 'https://evil.example' })).toEqual(refused(MSG.failed));
    // A signature that does not verify.
    expect(
      await attempt((r) => {
        r.response.signature = Buffer.from(r.response.signature, 'base64url').reverse().toString('base64url');
      }),
    ).toEqual(refused(MSG.failed));
    // No user handle, or another account's.
    expect(await attempt(() => {}, { userHandle: null })).toEqual(refused(MSG.failed));
    expect(await attempt(() => {}, { userHandle: Buffer.alloc(32, 7).toString('base64url') })).toEqual(refused(MSG.failed));
    // A credential nobody registered.
    const stranger = new SoftAuthenticator({ origin: SITE });
    stranger.create({ challenge: 'x', rp: { id: 'console.example.test', name: 'x' }, user: { id: 'dQ' } });
    expect((await browser.post('/api/user/passkey/login', { response: stranger.get(await loginOptions(browser)) })).body).toEqual(refused(MSG.unknown));
    expect(browser.cookie).toBe('');
    // Still good after all that, and a banned account's passkey signs in no more.
    expect(await attempt(() => {})).toMatchObject({ success: true });
    expect((await root.post('/api/user/manage', { id: owner.userId, action: 'disable' })).body.success).toBe(true);
    expect(await attempt(() => {})).toEqual(refused(MSG.unknown));
  });

  it('refuses a signature counter that goes backwards; one that stays at zero is fine', async () => {
    const owner = await newUser(a.url, `ct${suffix}`);
    const auth = new SoftAuthenticator({ origin: SITE });
    const { id } = await registerPasskey(owner, auth, 'Counted');
    const browser = new ApiClient(a.url);
    const signIn = async (pick: Parameters<SoftAuthenticator['get']>[1] = {}) => (await browser.post('/api/user/passkey/login', { response: auth.get(await loginOptions(browser), pick) })).body;
    expect((await signIn()).success).toBe(true);
    expect((await signIn()).success).toBe(true);
    // A clone of this authenticator, still at the first counter value.
    expect(await signIn({ counter: 1 })).toEqual(refused(MSG.counter));
    expect(await signIn({ counter: 0 })).toEqual(refused(MSG.counter));
    const stored = async () => Number((await a.ctx.db.db.selectFrom('passkeys').select('counter').where('id', '=', id).executeTakeFirstOrThrow()).counter);
    expect(await stored()).toBe(2);
    expect((await signIn()).success).toBe(true);
    expect(await stored()).toBe(5);

    // A synced passkey keeps no counter: 0 every time, accepted every time.
    const synced = await newUser(a.url, `cz${suffix}`);
    const cloud = new SoftAuthenticator({ origin: SITE, counterStep: 0 });
    await registerPasskey(synced, cloud, 'Synced');
    for (let i = 0; i < 2; i++) {
      const r = await browser.post('/api/user/passkey/login', { response: cloud.get(await loginOptions(browser)) });
      expect(r.body.data.id).toBe(synced.userId);
    }
  });

  it('renames and removes only the owner’s own passkeys; a removed one signs in no more', async () => {
    const owner = await newUser(a.url, `rm${suffix}`);
    const other = await newUser(a.url, `ro${suffix}`);
    const auth = new SoftAuthenticator({ origin: SITE });
    const spare = new SoftAuthenticator({ origin: SITE });
    const first = await registerPasskey(owner, auth, 'One');
    await registerPasskey(owner, spare, 'Two');

    expect((await owner.put(`/api/user/passkey/${first.id}`, { name: 'Office key' })).body.data).toMatchObject({ id: first.id, name: 'Office key' });
    expect((await owner.put(`/api/user/passkey/${first.id}`, { name: '' })).body).toEqual(refused('Enter a name for the passkey'));
    expect((await owner.put(`/api/user/passkey/${first.id}`, { name: 'x'.repeat(65) })).body.success).toBe(false);
    expect((await owner.put(`/api/user/passkey/${first.id}`, { name: 'a\u202Eb' })).body.success).toBe(false);
    // Another user's id: as if it did not exist.
    expect((await other.put(`/api/user/passkey/${first.id}`, { name: 'mine' })).body).toEqual(refused(MSG.notFound));
    expect((await other.del(`/api/user/passkey/${first.id}`)).body).toEqual(refused(MSG.notFound));
    expect((await owner.get('/api/user/passkey')).body.data.map((p: { name: string }) => p.name)).toEqual(['Office key', 'Two']);

    expect((await owner.del(`/api/user/passkey/${first.id}`)).body).toEqual({ success: true, message: '' });
    expect((await owner.del(`/api/user/passkey/${first.id}`)).body).toEqual(refused(MSG.notFound));
    const browser = new ApiClient(b.url);
    const removed = auth.get(await loginOptions(browser));
    expect((await browser.post('/api/user/passkey/login', { response: removed })).body).toEqual(refused(MSG.unknown));
    const kept = spare.get(await loginOptions(browser));
    expect((await browser.post('/api/user/passkey/login', { response: kept })).body.data.id).toBe(owner.userId);
  });
});

describe('passkeys without a server address', () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => srv?.close());

  it("take the relying party from the request's host, and cap an account at ten", async () => {
    const owner = await newUser(srv.url, 'hostrp');
    const origin = srv.url;
    const auth = new SoftAuthenticator({ origin });
    const options = (await owner.post('/api/user/passkey/register/options')).body.data;
    expect(options.rp.id).toBe('127.0.0.1');
    expect((await owner.post('/api/user/passkey/register', { name: 'Local', response: auth.create(options) })).body.success).toBe(true);
    const browser = new ApiClient(srv.url);
    const signIn = auth.get(await loginOptions(browser));
    expect((await browser.post('/api/user/passkey/login', { response: signIn })).body.data.username).toBe('hostrp');
    // Through a proxy that names another host, the same passkey is for another site.
    // (fetch may not set Host: the request goes through the app's own injection instead.)
    const proxied = await srv.app.inject({ method: 'POST', url: '/api/user/passkey/login/options', headers: { host: 'gateway.example.test:8443', 'content-type': 'application/json' }, payload: '{}' });
    expect(proxied.json().data.rpId).toBe('gateway.example.test');

    for (let i = 2; i <= 10; i++) await registerPasskey(owner, new SoftAuthenticator({ origin }), `Key ${i}`);
    expect((await owner.post('/api/user/passkey/register/options')).body).toEqual(refused('An account may register at most 10 passkeys; remove one first'));
  });
});
