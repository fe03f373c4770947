import { LogType } from '@modelgate/shared';
import { startFakeSmtp, type FakeSmtp } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/**
 * When ModelGate switches a channel off (an upstream refused its key) or back on (a passing test),
 * root finds it in the usage log and, with SMTP set up, in its mailbox (spec: "Channel has been
 * disabled (with reason)"; reference §3.6: root is e-mailed).
 */
describe('root is told when a channel is switched off or on automatically', () => {
  let h: RelayHarness;
  let smtp: FakeSmtp;
  const ROOT_MAIL = 'root-admin@example.com';
  const setOption = (key: string, value: string) => h.root.put('/api/option/', { key, value });
  const systemLogs = async () =>
    (await h.server.ctx.db.db.selectFrom('logs').select(['content', 'username', 'type']).where('type', '=', LogType.System).where('username', '=', 'root').orderBy('id').execute()).map((r) => r.content);

  beforeAll(async () => {
    h = await startRelayHarness({ fake: { apiKeys: ['sk-good'] } });
    smtp = await startFakeSmtp({ users: { 'mailer@example.com': 'smtp-pass' } });
    await h.server.ctx.db.db.updateTable('users').set({ email: ROOT_MAIL }).where('username', '=', 'root').execute();
    for (const [key, value] of Object.entries({
      SMTPServer: '127.0.0.1', SMTPPort: String(smtp.port), SMTPAccount: 'mailer@example.com', SMTPToken: 'smtp-pass', SMTPFrom: 'noreply@example.com',
      AutomaticDisableChannelEnabled: 'true', AutomaticEnableChannelEnabled: 'true',
    })) expect((await setOption(key, value)).body.success).toBe(true);
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('a relayed request whose key the upstream refuses: the channel is disabled, root gets a log entry and a mail with the reason', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-revoked', name: 'dead-openai', models: 'gpt-4o-mini' });
    const c = await addCaller(h);
    const err = (await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(401);
    await h.server.ctx.channelNotice.settled();
    const notice = `通道「dead-openai」（#${id}）已被禁用，原因：`;
    expect((await systemLogs()).filter((l) => l.startsWith(notice))).toHaveLength(1);
    const mail = await smtp.waitFor((m) => m.to.includes(ROOT_MAIL) && m.subject.startsWith(notice));
    expect(mail.html).toContain(`Channel &#34;dead-openai&#34; (#${id}) has been disabled:`);
    expect(mail.html).toMatch(/API key/);
    // A second failing request finds the channel already off: no second notice.
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).catch(() => undefined);
    await h.server.ctx.channelNotice.settled();
    expect((await systemLogs()).filter((l) => l.startsWith(notice))).toHaveLength(1);
  });

  it('a channel that passes test-all again is enabled, and root is told so', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', name: 'recovered', models: 'gpt-4o-mini' });
    await h.server.ctx.relay.autoDisableChannel(id, 'earlier failure');
    await h.server.ctx.channelOps.runTestAll();
    await h.server.ctx.channelNotice.settled();
    const logs = await systemLogs();
    expect(logs).toContain(`通道「recovered」（#${id}）已被禁用，原因：earlier failure`);
    expect(logs).toContain(`通道「recovered」（#${id}）已被启用`);
    await smtp.waitFor((m) => m.to.includes(ROOT_MAIL) && m.subject === `通道「recovered」（#${id}）已被启用`);
  });

  it('without SMTP the log entry is still written and nothing fails', async () => {
    expect((await setOption('SMTPServer', '')).body.success).toBe(true);
    const before = smtp.messages.length;
    const id = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-good', name: 'quiet' });
    await h.server.ctx.relay.autoDisableChannel(id, 'no mail configured');
    await h.server.ctx.channelNotice.settled();
    expect(await systemLogs()).toContain(`通道「quiet」（#${id}）已被禁用，原因：no mail configured`);
    expect(smtp.messages.length).toBe(before);
  });
});
