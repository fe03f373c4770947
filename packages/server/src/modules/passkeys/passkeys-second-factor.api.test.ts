import { telegramLoginPayload } from '@modelgate/testkit';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { waitForAudit } from '../../test-support/audit.js';
import { MSG, refused, registerPasskey } from '../../test-support/passkey-ceremonies.js';
import { SoftAuthenticator } from '../../test-support/soft-authenticator.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const ENROL = refused('Admin accounts must turn on two-factor sign-in first: set it up in personal settings');
const EXPIRED_FLOW = refused('This two-factor sign-in has expired or was already used; please sign in again');

describe('a passkey as the second factor, the admin policy and root reset', () => {
  let srv: TestServer;
  let root: ApiClient;
  let origin: string;
  let t = Math.floor(Date.now() / 1000 / 30) * 30;
  const nextCode = async (secret: string) => {
    t += 30;
    return generate({ secret, epoch: t });
  };
  const setOption = async (key: string, value: string) => expect((await root.put('/api/option/', { key, value })).body).toEqual({ success: true, message: '' });

  beforeAll(async () => {
    srv = await startTestServer({ env: { LOGIN_FAILURE_LIMIT: '3', LOGIN_FAILURE_WINDOW: '60' } });
    srv.ctx.twoFactor.clock = () => t;
    origin = srv.url;
    root = await rootClient(srv.url);
  });
  afterAll(async () => srv?.close());

  /** The password step: no session, a flow token. */
  const password = async (name: string) => {
    const c = new ApiClient(srv.url);
    const r = await c.post('/api/user/login', { username: name, password: 'password123' });
    expect(r.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(c.cookie).toBe('');
    return { c, flow: r.body.data.flow_token as string };
  };
  const options = async (c: ApiClient, flow: string) => {
    const r = await c.post('/api/user/login/2fa/passkey/options', { flow_token: flow });
    expect(r.body.success, r.body.message).toBe(true);
    return r.body.data;
  };

  it('asks for the passkey after the password, and starts the session only once it answers', async () => {
    const owner = await newUser(srv.url, 'sfowner');
    const key = new SoftAuthenticator({ origin });
    await registerPasskey(owner, key, 'Key');
    const { c, flow } = await password('sfowner');
    expect((await c.post('/api/user/login/2fa/methods', { flow_token: flow })).body.data).toEqual({ totp: false, passkey: true });
    // No TOTP on this account: a code cannot finish it.
    expect((await c.post('/api/user/login/2fa', { flow_token: flow, code: '123456' })).body).toEqual(
      refused('This account uses a passkey as its second factor: finish signing in with the passkey'),
    );
    const opts = await options(c, flow);
    expect(opts.allowCredentials.map((d: { id: string }) => d.id)).toEqual([key.credentials[0]!.id]);
    expect(opts.userVerification).toBe('preferred');

    const done = await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: key.get(opts) });
    expect(done.body).toMatchObject({ success: true, data: { id: owner.userId, username: 'sfowner', default_password: false } });
    c.userId = owner.userId;
    expect((await c.get('/api/user/self')).body.data.username).toBe('sfowner');
    // The flow token is spent, and so is the challenge.
    expect((await new ApiClient(srv.url).post('/api/user/login/2fa/passkey/options', { flow_token: flow })).body).toEqual(EXPIRED_FLOW);
    const replay = await new ApiClient(srv.url).post('/api/user/login/2fa/passkey', { flow_token: (await password('sfowner')).flow, response: key.get(opts) });
    expect(replay.body).toEqual(refused(MSG.expired));
  });

  it("refuses another account's passkey, another sign-in's challenge, and counts failures like wrong codes", async () => {
    const owner = await newUser(srv.url, 'sfvictim');
    const attacker = await newUser(srv.url, 'sfattack');
    const ownerKey = new SoftAuthenticator({ origin });
    const attackerKey = new SoftAuthenticator({ origin });
    await registerPasskey(owner, ownerKey, 'Mine');
    await registerPasskey(attacker, attackerKey, 'Theirs');

    // The attacker knows the victim's password, not their passkey: their own passkey is no second factor of the victim's.
    const { c, flow } = await password('sfvictim');
    let opts = await options(c, flow);
    const theirs = attackerKey.get({ ...opts, allowCredentials: [] });
    expect((await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: theirs })).body).toEqual(refused(MSG.failed));
    // A challenge issued for the attacker's own pending sign-in, answered on the victim's.
    const own = await password('sfattack');
    const ownOpts = await options(own.c, own.flow);
    opts = await options(c, flow);
    expect((await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: attackerKey.get(ownOpts) })).body).toEqual(refused(MSG.expired));
    // A username-less sign-in challenge is not a second-factor one.
    const signIn = (await c.post('/api/user/passkey/login/options')).body.data;
    expect((await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: ownerKey.get(signIn) })).body).toEqual(refused(MSG.expired));
    // Counted like wrong codes (LOGIN_FAILURE_LIMIT 3): a wrong passkey or signature is, a spent or
    // foreign challenge (no signature checked) is not. The third failure locks the second step.
    const forged = ownerKey.get(opts);
    forged.response.signature = Buffer.from(forged.response.signature, 'base64url').reverse().toString('base64url');
    expect((await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: forged })).body).toEqual(refused(MSG.failed));
    const again = attackerKey.get({ ...(await options(c, flow)), allowCredentials: [] });
    expect((await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: again })).body).toEqual(refused(MSG.failed));
    const locked = await c.post('/api/user/login/2fa/passkey', { flow_token: flow, response: ownerKey.get(await options(c, flow)) });
    expect(locked.body).toEqual(refused('Too many failed sign-in attempts for this account. Try again in 1 min'));
    expect(c.cookie).toBe('');
  });

  it('offers both when the account has TOTP and passkeys; either finishes the sign-in', async () => {
    const owner = await newUser(srv.url, 'sfboth');
    const secret = (await owner.post('/api/user/2fa/setup')).body.data.secret as string;
    expect((await owner.post('/api/user/2fa/enable', { code: await nextCode(secret) })).body.success).toBe(true);
    const key = new SoftAuthenticator({ origin });
    await registerPasskey(owner, key, 'Key');
    const first = await password('sfboth');
    expect((await first.c.post('/api/user/login/2fa/methods', { flow_token: first.flow })).body.data).toEqual({ totp: true, passkey: true });
    expect((await first.c.post('/api/user/login/2fa', { flow_token: first.flow, code: await nextCode(secret) })).body.success).toBe(true);
    const second = await password('sfboth');
    const done = await second.c.post('/api/user/login/2fa/passkey', { flow_token: second.flow, response: key.get(await options(second.c, second.flow)) });
    expect(done.body.data.id).toBe(owner.userId);
    // An account with TOTP only has no passkey to offer.
    const totpOnly = await newUser(srv.url, 'sftotp');
    const s2 = (await totpOnly.post('/api/user/2fa/setup')).body.data.secret as string;
    expect((await totpOnly.post('/api/user/2fa/enable', { code: await nextCode(s2) })).body.success).toBe(true);
    const third = await password('sftotp');
    expect((await third.c.post('/api/user/login/2fa/passkey/options', { flow_token: third.flow })).body).toEqual(
      refused('This account has no passkey; use a code from the authenticator app'),
    );
    expect((await third.c.post('/api/user/login/2fa/methods', { flow_token: 'made-up' })).body).toEqual(EXPIRED_FLOW);
  });

  it('asks for the passkey after a provider sign-in too (Telegram), before any session', async () => {
    const BOT = '654321:passkey-bot-token';
    for (const [key, value] of [['TelegramBotName', 'pk_bot'], ['TelegramBotToken', BOT], ['TelegramOAuthEnabled', 'true']]) await setOption(key!, value!);
    const owner = await newUser(srv.url, 'sftg');
    const tgId = 9_000_000 + Math.floor(Math.random() * 1_000_000);
    const now = Math.floor(Date.now() / 1000);
    expect((await owner.get(`/api/oauth/telegram/bind?${new URLSearchParams(telegramLoginPayload(BOT, { id: tgId, first_name: 'Owner' }, { authDate: now - 2 }))}`)).body.success).toBe(true);
    const key = new SoftAuthenticator({ origin });
    await registerPasskey(owner, key, 'Key');

    const browser = new ApiClient(srv.url);
    const first = await browser.get(`/api/oauth/telegram/login?${new URLSearchParams(telegramLoginPayload(BOT, { id: tgId, first_name: 'Owner' }, { authDate: now - 1 }))}`);
    expect(first.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(browser.cookie).toBe('');
    const flow = first.body.data.flow_token as string;
    const done = await browser.post('/api/user/login/2fa/passkey', { flow_token: flow, response: key.get(await options(browser, flow)) });
    expect(done.body).toMatchObject({ success: true, data: { id: owner.userId, username: 'sftg' } });
    browser.userId = owner.userId;
    expect((await browser.get('/api/user/self')).body.data.username).toBe('sftg');
  });

  it('counts a passkey for the admin policy; registering one is open to an admin who must enrol', async () => {
    const admin = await newUser(srv.url, 'sfadmin');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    const adminAgain = new ApiClient(srv.url);
    await adminAgain.login('sfadmin', 'password123');
    // Root enrols first (with a passkey), so the policy does not lock root out of the options.
    const rootKey = new SoftAuthenticator({ origin });
    await registerPasskey(root, rootKey, 'Root key');
    await setOption('TwoFactorRequiredForAdmins', 'true');
    try {
      expect((await adminAgain.get('/api/user/?p=1')).body).toEqual(ENROL);
      expect((await adminAgain.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, backup_codes_remaining: 0, enrolment_required: true, passkeys: 0 });
      await registerPasskey(adminAgain, new SoftAuthenticator({ origin }), 'Admin key');
      expect((await adminAgain.get('/api/user/2fa/status')).body.data).toMatchObject({ enabled: false, enrolment_required: false, passkeys: 1 });
      expect((await adminAgain.get('/api/user/?p=1')).body.success).toBe(true);
      expect((await root.get('/api/user/?p=1')).body.success).toBe(true);
      // Its last passkey removed, the admin is sent to enrol again.
      const [mine] = (await adminAgain.get('/api/user/passkey')).body.data;
      expect((await adminAgain.del(`/api/user/passkey/${mine.id}`)).body).toEqual({ success: true, message: '' });
      expect((await adminAgain.get('/api/user/?p=1')).body).toEqual(ENROL);
    } finally {
      await setOption('TwoFactorRequiredForAdmins', 'false');
    }
  });

  it("lets root reset a user's passkeys with their TOTP, audited; the admin list shows each user's second factors", async () => {
    const owner = await newUser(srv.url, 'sfreset');
    const plain = await newUser(srv.url, 'sfplain');
    const secret = (await owner.post('/api/user/2fa/setup')).body.data.secret as string;
    expect((await owner.post('/api/user/2fa/enable', { code: await nextCode(secret) })).body.success).toBe(true);
    const key = new SoftAuthenticator({ origin });
    await registerPasskey(owner, key, 'One');
    await registerPasskey(owner, new SoftAuthenticator({ origin }), 'Two');
    const onlyKeys = await newUser(srv.url, 'sfkeys');
    await registerPasskey(onlyKeys, new SoftAuthenticator({ origin }), 'K');

    const page = (await root.get('/api/user/search?keyword=sf&p=1&page_size=100')).body.data.items as Array<{ id: number; two_factor: unknown; DeletedAt: unknown }>;
    const factors = (id: number | null) => page.find((u) => u.id === id)?.two_factor;
    expect(factors(owner.userId)).toEqual({ totp: true, passkeys: 2 });
    expect(factors(onlyKeys.userId)).toEqual({ totp: false, passkeys: 1 });
    expect(factors(plain.userId)).toEqual({ totp: false, passkeys: 0 });
    expect(page.every((u) => u.DeletedAt === null)).toBe(true);
    const all = (await root.get('/api/user/?p=1&page_size=100')).body.data.items as Array<{ id: number; two_factor: unknown }>;
    expect(all.find((u) => u.id === owner.userId)?.two_factor).toEqual({ totp: true, passkeys: 2 });

    // A passkeys-only account is reset as well (nothing else to remove).
    expect((await root.del(`/api/user/${onlyKeys.userId}/2fa`)).body).toEqual({ success: true, message: '' });
    expect((await root.del(`/api/user/${owner.userId}/2fa`)).body).toEqual({ success: true, message: '' });
    const entry = await waitForAudit(root, (e) => e.action === 'user.reset_2fa' && e.target_id === String(owner.userId));
    expect(entry).toMatchObject({ actor_id: 1, target_type: 'user', success: true });
    expect((await owner.get('/api/user/self')).status).toBe(401);
    const rows = await srv.ctx.db.db.selectFrom('passkeys').select('id').where('user_id', 'in', [owner.userId!, onlyKeys.userId!]).execute();
    expect(rows).toEqual([]);
    // The password alone signs in now; the old passkey signs in no more.
    const back = new ApiClient(srv.url);
    expect((await back.login('sfreset', 'password123')).body.data).toMatchObject({ id: owner.userId });
    const signIn = (await back.post('/api/user/passkey/login/options')).body.data;
    expect((await back.post('/api/user/passkey/login', { response: key.get(signIn) })).body).toEqual(refused(MSG.unknown));
  });
});
