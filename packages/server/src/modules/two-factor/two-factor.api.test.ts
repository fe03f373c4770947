import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser } from '../../test-support/api-client.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const WRONG = { success: false, message: 'The code or backup code is incorrect, please try again' };
const EXPIRED = { success: false, message: 'This two-factor sign-in has expired or was already used; please sign in again' };
const LOCKED = { success: false, message: 'Too many failed sign-in attempts for this account. Try again in 1 min' };

/** Where flow tokens and the throttle live: the database always, Redis when the run has one. */
const backends = (): Array<[string, Record<string, string>]> => {
  const out: Array<[string, Record<string, string>]> = testDbKinds().map((k) => [k, {}]);
  if (process.env.TEST_REDIS_URL) out.push(['sqlite + redis', { REDIS_CONN_STRING: process.env.TEST_REDIS_URL }]);
  return out;
};

describe.each(backends())('TOTP two-factor sign-in on two nodes over %s', (label, extraEnv) => {
  let a: TestServer;
  let b: TestServer;
  const kind = label.startsWith('postgres') ? 'postgres' : label.startsWith('mysql') ? 'mysql' : 'sqlite';
  const suffix = Math.random().toString(36).slice(2, 6);
  // The servers' TOTP clock, moved a step (30 s) whenever a test needs a fresh code.
  let t = Math.floor(Date.now() / 1000 / 30) * 30;
  const nextCode = async (secret: string) => {
    t += 30;
    return generate({ secret, epoch: t });
  };

  beforeAll(async () => {
    const env = { LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW: '60', ...extraEnv };
    a = await startTestServer({ kind, env });
    b = await startTestServer({ kind, env, alongside: a });
    for (const srv of [a, b]) srv.ctx.twoFactor.clock = () => t;
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  /** Sets up and confirms TOTP for a signed-in client; answers the secret and the backup codes. */
  const enrol = async (c: ApiClient) => {
    const setup = await c.post('/api/user/2fa/setup');
    expect(setup.body.success).toBe(true);
    const secret = setup.body.data.secret as string;
    const enabled = await c.post('/api/user/2fa/enable', { code: await nextCode(secret) });
    expect(enabled.body.success).toBe(true);
    return { secret, backup: enabled.body.data.backup_codes as string[] };
  };

  /** The first factor only: answers the client (no session yet) and the flow token. */
  const password = async (srv: TestServer, name: string) => {
    const c = new ApiClient(srv.url);
    const r = await c.post('/api/user/login', { username: name, password: 'password123' });
    expect(r.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(r.headers.getSetCookie().some((x) => x.startsWith('session='))).toBe(false);
    return { c, flow: r.body.data.flow_token as string };
  };

  const finish = async (c: ApiClient, flow: string, code: string) => {
    const r = await c.post('/api/user/login/2fa', { flow_token: flow, code });
    if (r.body.success) c.userId = r.body.data.id;
    return r;
  };

  it('enrols with a confirming code: the secret is sealed at rest, ten distinct backup codes are shown once', async () => {
    const c = await newUser(a.url, `en${suffix}`);
    const setup = await c.post('/api/user/2fa/setup');
    expect(setup.body.data.qr_code_data).toMatch(new RegExp(`^otpauth://totp/.*en${suffix}\\?.*secret=${setup.body.data.secret}`));
    expect(setup.body.data.qr_code).toMatch(/^data:image\/png;base64,/);
    // Not on until confirmed: a password alone still signs in.
    expect((await c.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, backup_codes_remaining: 0, enrolment_required: false, passkeys: 0 });
    expect((await new ApiClient(a.url).login(`en${suffix}`, 'password123')).body.data.require_2fa).toBeUndefined();
    expect((await c.post('/api/user/2fa/enable', { code: '000000' })).body).toEqual(WRONG);

    const secret = setup.body.data.secret as string;
    const enabled = await c.post('/api/user/2fa/enable', { code: await nextCode(secret) });
    const codes = enabled.body.data.backup_codes as string[];
    expect(codes).toHaveLength(10);
    expect(new Set(codes).size).toBe(10);
    for (const code of codes) expect(code).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect((await c.get('/api/user/2fa/status')).body.data).toEqual({ enabled: true, backup_codes_remaining: 10, enrolment_required: false, passkeys: 0 });

    const row = await a.ctx.db.db.selectFrom('two_factor').selectAll().where('user_id', '=', c.userId!).executeTakeFirstOrThrow();
    expect(row.secret.startsWith('enc:v1:')).toBe(true);
    expect(row.secret).not.toContain(secret);
    const hashes = await a.ctx.db.db.selectFrom('two_factor_backup_codes').select('code_hash').where('user_id', '=', c.userId!).execute();
    expect(hashes.map((h) => h.code_hash).some((h) => codes.some((code) => h.includes(code.replace('-', ''))))).toBe(false);
    // A second setup while on is refused, and leaves the secret in force.
    expect((await c.post('/api/user/2fa/setup')).body.message).toBe('Two-factor sign-in is already on; turn it off before setting it up again');
    const { c: next, flow } = await password(a, `en${suffix}`);
    expect((await finish(next, flow, await nextCode(secret))).body.success).toBe(true);
  });

  it('creates the session only after the code, on either node; a code, and a flow token, work once', async () => {
    const owner = await newUser(a.url, `si${suffix}`);
    const { secret } = await enrol(owner);

    const { c, flow } = await password(a, `si${suffix}`);
    // The flow token is no session.
    c.userId = owner.userId;
    expect((await c.get('/api/user/self')).status).toBe(401);
    const code = await nextCode(secret);
    const done = await finish(c, flow, code);
    expect(done.body).toMatchObject({ success: true, data: { id: owner.userId, username: `si${suffix}`, default_password: false } });
    expect(done.headers.getSetCookie().some((x) => x.startsWith('session='))).toBe(true);
    expect((await c.get('/api/user/self')).body.data.username).toBe(`si${suffix}`);

    // The same flow token again (another browser that saw it): spent.
    expect((await finish(new ApiClient(b.url), flow, await nextCode(secret))).body).toEqual(EXPIRED);
    // The same code on a new sign-in, at once, on the other node: refused (single use within its step).
    const again = await password(b, `si${suffix}`);
    expect((await finish(again.c, again.flow, code)).body).toEqual(WRONG);
    // An older code (the step before) is refused as well; the next one finishes the sign-in on node b.
    expect((await finish(again.c, again.flow, await generate({ secret, epoch: t - 30 }))).body).toEqual(WRONG);
    expect((await finish(again.c, again.flow, await nextCode(secret))).body.success).toBe(true);

    // Two requests with one flow token and one code at once: one session, not two.
    const race = await password(a, `si${suffix}`);
    const raceCode = await nextCode(secret);
    const both = await Promise.all([finish(new ApiClient(a.url), race.flow, raceCode), finish(new ApiClient(b.url), race.flow, raceCode)]);
    expect(both.filter((r) => r.body.success)).toHaveLength(1);
    // Garbage tokens say the same as spent ones.
    expect((await finish(new ApiClient(a.url), 'not-a-token', await nextCode(secret))).body).toEqual(EXPIRED);
    expect((await finish(new ApiClient(a.url), '', '123456')).body).toEqual(EXPIRED);
  });

  it('takes each backup code once, regenerates them with a code, and counts wrong codes per account', async () => {
    const owner = await newUser(a.url, `bk${suffix}`);
    const { secret, backup } = await enrol(owner);

    const first = await password(a, `bk${suffix}`);
    expect((await finish(first.c, first.flow, backup[0]!.toUpperCase().replace('-', ' '))).body.success).toBe(true);
    const second = await password(b, `bk${suffix}`);
    expect((await finish(second.c, second.flow, backup[0]!)).body).toEqual(WRONG);
    expect((await owner.get('/api/user/2fa/status')).body.data.backup_codes_remaining).toBe(9);

    // Regenerating needs a code from the app, not a backup code; the old codes stop working.
    expect((await owner.post('/api/user/2fa/backup_codes', { code: backup[1] })).body).toEqual(WRONG);
    const regen = await owner.post('/api/user/2fa/backup_codes', { code: await nextCode(secret) });
    const fresh = regen.body.data.backup_codes as string[];
    expect(fresh).toHaveLength(10);
    expect(fresh).not.toContain(backup[2]);
    expect((await owner.get('/api/user/2fa/status')).body.data.backup_codes_remaining).toBe(10);
    const third = await password(a, `bk${suffix}`);
    // (The right code cleared the count, as a right password does.) Three wrong codes, on either node…
    expect((await finish(third.c, third.flow, backup[2]!)).body).toEqual(WRONG);
    expect((await finish(third.c, third.flow, '123456')).body).toEqual(WRONG);
    const elsewhere = await password(b, `bk${suffix}`);
    expect((await finish(elsewhere.c, elsewhere.flow, 'zzzzz-zzzzz')).body).toEqual(WRONG);
    // …and the account is locked, even for the right code or an unused backup code.
    const locked = await finish(third.c, third.flow, await nextCode(secret));
    expect(locked.body).toEqual(LOCKED);
    expect((await finish(third.c, third.flow, fresh[0]!)).body).toEqual(LOCKED);
    // Another account is not affected.
    const other = await newUser(b.url, `bo${suffix}`);
    const otherSecret = (await enrol(other)).secret;
    const o = await password(b, `bo${suffix}`);
    expect((await finish(o.c, o.flow, await nextCode(otherSecret))).body.success).toBe(true);
  });

  it("refuses one user's code on another user's flow token, and leaves access tokens alone", async () => {
    const alice = await newUser(a.url, `al${suffix}`);
    const bob = await newUser(a.url, `bb${suffix}`);
    const aliceSecret = (await enrol(alice)).secret;
    const bobBackup = (await enrol(bob)).backup;
    const token = (await alice.get('/api/user/token')).body.data as string;

    const { c, flow } = await password(a, `al${suffix}`);
    expect((await finish(c, flow, bobBackup[0]!)).body).toEqual(WRONG);
    // Bob's code was not spent by the attempt on Alice's flow.
    const bobFlow = await password(a, `bb${suffix}`);
    expect((await finish(bobFlow.c, bobFlow.flow, bobBackup[0]!)).body.success).toBe(true);
    expect((await finish(c, flow, await nextCode(aliceSecret))).body.success).toBe(true);

    // The system access token is a credential of its own: no second factor asked.
    const script = new ApiClient(a.url);
    script.accessToken = token;
    script.userId = alice.userId;
    expect((await script.get('/api/user/self')).body.data.username).toBe(`al${suffix}`);
  });

  it('expires a flow token after its five minutes', async () => {
    const owner = await newUser(a.url, `ex${suffix}`);
    const { secret } = await enrol(owner);
    const { c, flow } = await password(a, `ex${suffix}`);
    if (extraEnv.REDIS_CONN_STRING) {
      const redis = (a.ctx.cluster.store as unknown as { redis: { keys(p: string): Promise<string[]>; pexpire(k: string, ms: number): Promise<number> } }).redis;
      for (const k of await redis.keys('modelgate:kv:2fa-login:*')) await redis.pexpire(k, 1);
      await new Promise((r) => setTimeout(r, 20));
    } else {
      // The database store compares expires_at with the clock: this is what five minutes later looks like.
      await a.ctx.db.db.updateTable('shared_state').set({ expires_at: Date.now() - 1 }).where('value', 'like', `{"u":${owner.userId},%`).execute();
    }
    expect((await finish(c, flow, await nextCode(secret))).body).toEqual(EXPIRED);
  });

  it('turns off with a code or a backup code; a password alone signs in afterwards', async () => {
    const owner = await newUser(a.url, `of${suffix}`);
    const { backup } = await enrol(owner);
    expect((await owner.post('/api/user/2fa/disable', { code: 'abcde-fghjk' })).body).toEqual(WRONG);
    expect((await owner.post('/api/user/2fa/disable', { code: backup[3] })).body).toEqual({ success: true, message: '' });
    expect((await owner.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, backup_codes_remaining: 0, enrolment_required: false, passkeys: 0 });
    const plain = await new ApiClient(b.url).login(`of${suffix}`, 'password123');
    expect(plain.body.data).toMatchObject({ username: `of${suffix}` });
    expect(await a.ctx.db.db.selectFrom('two_factor_backup_codes').select('id').where('user_id', '=', owner.userId!).execute()).toEqual([]);
    expect((await owner.post('/api/user/2fa/disable', { code: backup[4] })).body.message).toBe('Two-factor sign-in is not on for this account');
  });
});
