import { telegramLoginPayload } from '@modelgate/testkit';
import { generate } from 'otplib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resealSecrets, TWO_FACTOR_SECRET_PURPOSE } from '../../crypto/reseal.js';
import { SecretBox } from '../../crypto/secret-box.js';
import { ApiClient, newUser, rootClient } from '../../test-support/api-client.js';
import { waitForAudit } from '../../test-support/audit.js';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';

const ENROL = { success: false, message: 'Admin accounts must turn on two-factor sign-in first: set it up in personal settings' };
const BOT_TOKEN = '123456:two-factor-bot-token';

describe('the admin policy, root reset and provider sign-ins', () => {
  let srv: TestServer;
  let root: ApiClient;
  let t = Math.floor(Date.now() / 1000 / 30) * 30;
  const nextCode = async (secret: string) => {
    t += 30;
    return generate({ secret, epoch: t });
  };
  const enrol = async (c: ApiClient) => {
    const secret = (await c.post('/api/user/2fa/setup')).body.data.secret as string;
    const r = await c.post('/api/user/2fa/enable', { code: await nextCode(secret) });
    expect(r.body.success).toBe(true);
    return { secret, backup: r.body.data.backup_codes as string[] };
  };
  const setOption = async (key: string, value: string, as = root) => expect((await as.put('/api/option/', { key, value })).body).toEqual({ success: true, message: '' });

  beforeAll(async () => {
    srv = await startTestServer();
    srv.ctx.twoFactor.clock = () => t;
    root = await rootClient(srv.url);
  });
  afterAll(async () => srv?.close());

  it('sends an admin without a second factor to enrol: every other console call is refused until then', async () => {
    const admin = await newUser(srv.url, 'poladmin');
    const user = await newUser(srv.url, 'poluser');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    const adminAgain = new ApiClient(srv.url);
    expect((await adminAgain.login('poladmin', 'password123')).body.success).toBe(true);
    const rootToken = (await root.get('/api/user/token')).body.data as string;

    await setOption('TwoFactorRequiredForAdmins', 'true');
    // Root has no second factor either: refused like any admin, in the console's language.
    const refused = await root.get('/api/channel/?p=1&page_size=10');
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(ENROL);
    root.lang = 'zh-CN';
    expect((await root.get('/api/log/?p=1')).body.message).toBe('管理员账户必须先启用两步验证，请在个人设置中完成设置');
    root.lang = 'en';
    expect((await adminAgain.get('/api/user/?p=1')).body).toEqual(ENROL);
    expect((await adminAgain.get('/api/token/?p=1')).body).toEqual(ENROL);
    expect((await adminAgain.put('/api/user/self', { display_name: 'x' })).body).toEqual(ENROL);
    // What enrolment needs still works, and says why.
    expect((await adminAgain.get('/api/user/self')).body.success).toBe(true);
    expect((await adminAgain.get('/api/user/2fa/status')).body.data).toEqual({ enabled: false, backup_codes_remaining: 0, enrolment_required: true, passkeys: 0 });
    // A common user is not concerned; nor is root's access token (a credential made on purpose, like an API key).
    expect((await user.get('/api/token/?p=1')).body.success).toBe(true);
    const script = new ApiClient(srv.url);
    script.accessToken = rootToken;
    script.userId = 1;
    expect((await script.get('/api/channel/?p=1&page_size=10')).body.success).toBe(true);

    // Enrolled: everything again, and sign-ins ask for the code.
    await enrol(adminAgain);
    expect((await adminAgain.get('/api/user/?p=1')).body.success).toBe(true);
    expect((await adminAgain.get('/api/user/2fa/status')).body.data.enrolment_required).toBe(false);
    await enrol(root);
    expect((await root.get('/api/channel/?p=1&page_size=10')).body.success).toBe(true);
    await setOption('TwoFactorRequiredForAdmins', 'false');
  });

  it("lets root (only) reset a user's second factor, audited, ending that user's sessions", async () => {
    const owner = await newUser(srv.url, 'rstowner');
    await enrol(owner);
    const admin = await newUser(srv.url, 'rstadmin');
    expect((await root.post('/api/user/manage', { id: admin.userId, action: 'promote' })).body.success).toBe(true);
    const adminAgain = new ApiClient(srv.url);
    await adminAgain.login('rstadmin', 'password123');

    expect((await adminAgain.del(`/api/user/${owner.userId}/2fa`)).body).toEqual({ success: false, message: 'No permission for this operation' });
    expect((await owner.del(`/api/user/${owner.userId}/2fa`)).body.success).toBe(false);
    expect((await owner.get('/api/user/2fa/status')).body.data.enabled).toBe(true);

    expect((await root.del(`/api/user/${owner.userId}/2fa`)).body).toEqual({ success: true, message: '' });
    const entry = await waitForAudit(root, (e) => e.action === 'user.reset_2fa');
    expect(entry).toMatchObject({ actor_id: 1, target_type: 'user', target_id: String(owner.userId), success: true });
    // The owner's session ended; the password alone signs in now, and they may enrol again.
    expect((await owner.get('/api/user/self')).status).toBe(401);
    const back = new ApiClient(srv.url);
    expect((await back.login('rstowner', 'password123')).body.data).toMatchObject({ id: owner.userId });
    expect((await back.get('/api/user/2fa/status')).body.data.enabled).toBe(false);
    expect((await root.del(`/api/user/${owner.userId}/2fa`)).body.message).toBe('Two-factor sign-in is not on for this account');
    expect((await root.del('/api/user/999999/2fa')).body.message).toBe('User does not exist');
  });

  it('asks for the second factor after a provider sign-in too (Telegram), before any session', async () => {
    for (const [key, value] of [['TelegramBotName', 'mg_bot'], ['TelegramBotToken', BOT_TOKEN], ['TelegramOAuthEnabled', 'true']]) await setOption(key!, value!);
    const owner = await newUser(srv.url, 'tgowner');
    const tgId = 8_000_000 + Math.floor(Math.random() * 1_000_000);
    const now = Math.floor(Date.now() / 1000);
    const bind = telegramLoginPayload(BOT_TOKEN, { id: tgId, first_name: 'Owner' }, { authDate: now - 2 });
    expect((await owner.get(`/api/oauth/telegram/bind?${new URLSearchParams(bind)}`)).body.success).toBe(true);
    const { secret } = await enrol(owner);

    const browser = new ApiClient(srv.url);
    const payload = telegramLoginPayload(BOT_TOKEN, { id: tgId, first_name: 'Owner' }, { authDate: now - 1 });
    const first = await browser.get(`/api/oauth/telegram/login?${new URLSearchParams(payload)}`);
    expect(first.body).toMatchObject({ success: true, data: { require_2fa: true } });
    expect(first.headers.getSetCookie().some((c) => c.startsWith('session='))).toBe(false);
    const done = await browser.post('/api/user/login/2fa', { flow_token: first.body.data.flow_token, code: await nextCode(secret) });
    expect(done.body).toMatchObject({ success: true, data: { id: owner.userId, username: 'tgowner' } });
    browser.userId = owner.userId;
    expect((await browser.get('/api/user/self')).body.data.username).toBe('tgowner');
  });

  // Last: the rotated secrets no longer open with this server's key.
  it('re-seals TOTP secrets with the new key when CRYPTO_SECRET is rotated', async () => {
    const owner = await newUser(srv.url, 'rotowner');
    const { secret } = await enrol(owner);
    // The test server seals with SESSION_SECRET (no CRYPTO_SECRET): that is the old key now.
    const box = new SecretBox({ current: 'rotated-crypto-secret', previous: ['test-secret'] });
    const report = await resealSecrets(srv.ctx.db, box, 'rotate');
    expect(report.twoFactor.unreadable).toEqual([]);
    expect(report.twoFactor.rotated).toBeGreaterThanOrEqual(1);
    const row = await srv.ctx.db.db.selectFrom('two_factor').select('secret').where('user_id', '=', owner.userId!).executeTakeFirstOrThrow();
    expect(SecretBox.kidOf(row.secret)).toBe(box.currentKid);
    expect(box.open(TWO_FACTOR_SECRET_PURPOSE, row.secret)).toBe(secret);
    // Run again: nothing left to do.
    expect((await resealSecrets(srv.ctx.db, box, 'rotate')).twoFactor.rotated).toBe(0);
  });
});
