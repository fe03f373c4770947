import { startFakeSmtp, type FakeSmtp } from '@modelgate/testkit';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { capturePino } from '../../test-support/capture-logger.js';
import { addCaller, addChannel, balances, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';

describe('quota reminder mail after relayed charges', () => {
  let h: RelayHarness;
  let smtp: FakeSmtp;
  const { log, lines } = capturePino();
  let charge = 0;

  const setOption = async (key: string, value: string) => expect((await h.root.put('/api/option/', { key, value })).body.success).toBe(true);
  const chat = (c: TestCaller) => c.client.chat.completions.create({ model: 'gpt-4', messages: [{ role: 'user', content: 'how much is left' }] });
  /** A caller with an email whose balance is exactly `quota`. */
  async function caller(email: string, quota: number): Promise<TestCaller> {
    const c = await addCaller(h, { quota, unlimited: true });
    await h.server.ctx.users.update(c.userId, { email });
    return c;
  }
  const remindersTo = (email: string) => smtp.messages.filter((m) => m.to.includes(email));

  beforeAll(async () => {
    smtp = await startFakeSmtp();
    h = await startRelayHarness({ log });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
    for (const [key, value] of [['SMTPServer', '127.0.0.1'], ['SMTPPort', String(smtp.port)], ['SMTPFrom', 'gate@example.com'], ['ServerAddress', 'https://gate.example.com'], ['QuotaRemindThreshold', '100000'], ['ModelPrice', JSON.stringify({ 'gpt-4': 0.002 })]]) {
      await setOption(key, value);
    }
    // A fixed price per call: each call costs exactly $0.002, so a balance can be made to cross a line or reach zero.
    const probe = await caller('probe@example.com', 10_000_000);
    await chat(probe);
    charge = 10_000_000 - (await balances(h, probe)).quota;
    expect(charge).toBe(1000);
  });
  afterAll(async () => {
    await h?.close();
    await smtp?.close();
  });

  it('mails "almost depleted" once when a charge takes the balance below the threshold, with the top-up link', async () => {
    const c = await caller('low@example.com', 100_000 + Math.floor(charge / 2));
    await chat(c);
    const mail = await smtp.waitFor((m) => m.to.includes('low@example.com'));
    expect(mail.subject).toBe('您的额度即将用尽 / Your quota is almost depleted');
    expect(mail.html).toContain('https://gate.example.com/topup');
    expect(mail.html).toContain('Your remaining quota is $0.20');
    // Still above zero, still below the threshold: no second mail within two hours.
    await chat(c);
    await h.server.ctx.quotaReminder.flush();
    expect(remindersTo('low@example.com')).toHaveLength(1);
  });

  it('mails "depleted" when a charge takes the balance to zero, and not to users without an email', async () => {
    const c = await caller('zero@example.com', charge);
    await chat(c);
    expect((await balances(h, c)).quota).toBe(0);
    const mail = await smtp.waitFor((m) => m.to.includes('zero@example.com'));
    expect(mail.subject).toBe('您的额度已用尽 / Your quota is depleted');
    const silent = await addCaller(h, { quota: charge, unlimited: true });
    await chat(silent);
    await h.server.ctx.quotaReminder.flush();
    expect(smtp.messages.filter((m) => m.subject === mail.subject).map((m) => m.to)).toEqual([mail.to]);
  });

  it('sends nothing for a charge that stays above the threshold', async () => {
    const c = await caller('rich@example.com', 5_000_000);
    await chat(c);
    await h.server.ctx.quotaReminder.flush();
    expect(remindersTo('rich@example.com')).toEqual([]);
  });

  it('answers the relay without waiting for a stuck SMTP server, then logs the failed mail and retries later', async () => {
    // Accepts connections and never greets: a mail attempt hangs until the socket is closed.
    const sockets = new Set<net.Socket>();
    let connected!: () => void;
    const reached = new Promise<void>((r) => (connected = r));
    const stuck = net.createServer((s) => {
      sockets.add(s);
      connected();
    });
    await new Promise<void>((r) => stuck.listen(0, '127.0.0.1', r));
    await setOption('SMTPPort', String((stuck.address() as net.AddressInfo).port));
    const c = await caller('stuck@example.com', 100_000 + Math.floor(charge / 2));
    const started = Date.now();
    const reply = await chat(c);
    expect(reply.choices[0]!.message.content).toBeTruthy();
    expect(Date.now() - started).toBeLessThan(5_000);
    await reached;
    const before = (await balances(h, c)).quota;
    for (const s of sockets) s.destroy();
    await h.server.ctx.quotaReminder.flush();
    const failed = lines.filter((l) => l.level === 40 && l.msg === 'quota reminder mail failed; retrying later');
    expect(failed.map((l) => l.userId)).toEqual([c.userId]);
    expect(await h.server.ctx.cluster.store.get(`quota-remind:${c.userId}`)).toBe('failed');
    expect((await balances(h, c)).quota).toBe(before);
    stuck.close();
    await setOption('SMTPPort', String(smtp.port));
  });
});
