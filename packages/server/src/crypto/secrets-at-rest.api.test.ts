import { OPTION_KEYS, isSecretOption } from '@modelgate/shared';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../db/client.js';
import { OptionsService } from '../modules/options/options.service.js';
import { capturePino } from '../test-support/capture-logger.js';
import { addCaller, addChannel, consumeLogs, priceModels, spentBy, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';
import { resealSecrets, sealSecretsAtBoot } from './reseal.js';
import { CHANNEL_KEY_PURPOSE, keyIdOf, optionPurpose, SecretBox } from './secret-box.js';

const SECRET_OPTIONS = OPTION_KEYS.filter((k) => isSecretOption(k));
const CRYPTO_SECRET = 'at-rest-test-secret';

describe.each(testDbKinds())('secrets sealed at rest on %s', (kind) => {
  const { log, lines } = capturePino('warn');
  let h: RelayHarness;
  const db = () => h.server.ctx.db.db;
  const rawChannel = async (id: number) => (await db().selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()).key;
  const rawOption = async (key: string) => (await db().selectFrom('options').select('value').where('key', '=', key).executeTakeFirst())?.value;
  const box = new SecretBox({ current: CRYPTO_SECRET });

  beforeAll(async () => {
    h = await startRelayHarness({ kind, log, env: { CRYPTO_SECRET } });
    await priceModels(h, ['m-sealed', 'm-tampered']);
    lines.length = 0;
  });
  afterAll(() => h?.close());

  it('keys in the database are ciphertext: a new channel, an edited key, a copy', async () => {
    const id = await addChannel(h.root, { key: 'sk-plain-never-stored-1', models: 'm-sealed-list' });
    const stored = await rawChannel(id);
    expect(stored.startsWith(`enc:v1:${keyIdOf(CRYPTO_SECRET)}:`)).toBe(true);
    expect(stored).not.toContain('sk-plain-never-stored-1');
    expect(box.open(CHANNEL_KEY_PURPOSE, stored)).toBe('sk-plain-never-stored-1');
    // No answer carries the key, sealed or not.
    for (const path of [`/api/channel/${id}`, '/api/channel/?p=0&page_size=100', '/api/channel/search?keyword=sk-plain-never-stored-1']) {
      const text = JSON.stringify((await h.root.get(path)).body);
      expect(text, path).not.toContain('sk-plain-never-stored-1');
      expect(text, path).not.toContain('enc:v1:');
    }
    // The search box still finds a channel by its exact key.
    expect((await h.root.get('/api/channel/search?keyword=sk-plain-never-stored-1')).body.data.map((c: { id: number }) => c.id)).toEqual([id]);

    const edit = await h.root.put('/api/channel/', { id, key: 'sk-plain-never-stored-2', name: 'edited' });
    expect(edit.body.success).toBe(true);
    const edited = await rawChannel(id);
    expect(edited).not.toContain('sk-plain-never-stored-2');
    expect(box.open(CHANNEL_KEY_PURPOSE, edited)).toBe('sk-plain-never-stored-2');

    const copy = await h.root.post(`/api/channel/copy/${id}`);
    expect(copy.body.success).toBe(true);
    const copied = await rawChannel(copy.body.data.id);
    expect(SecretBox.isSealed(copied)).toBe(true);
    expect(box.open(CHANNEL_KEY_PURPOSE, copied)).toBe('sk-plain-never-stored-2');
  });

  it('every secret option is stored sealed, read opened, and never listed', async () => {
    expect(SECRET_OPTIONS).toEqual(expect.arrayContaining(['GitHubClientSecret', 'LinuxDOClientSecret', 'OIDCClientSecret', 'WeChatServerToken', 'TelegramBotToken', 'TurnstileSecretKey', 'SMTPToken', 'EpayKey', 'WorkerValidKey', 'MetricsToken']));
    // Payment options need the server address first.
    expect((await h.root.put('/api/option/', { key: 'ServerAddress', value: 'https://gate.example.com' })).body.success).toBe(true);
    for (const key of SECRET_OPTIONS) {
      const value = `plain-${key}-value`;
      const r = await h.root.put('/api/option/', { key, value });
      expect(r.body, key).toEqual({ success: true, message: '' });
      const stored = (await rawOption(key))!;
      expect(stored.startsWith('enc:v1:'), key).toBe(true);
      expect(stored, key).not.toContain(value);
      expect(box.open(optionPurpose(key), stored), key).toBe(value);
      expect(h.server.ctx.options.str(key), key).toBe(value);
    }
    const listed = JSON.stringify((await h.root.get('/api/option/')).body);
    for (const key of SECRET_OPTIONS) {
      expect(listed).not.toContain(`plain-${key}-value`);
      expect(listed).not.toContain(`"${key}"`);
    }
    expect(listed).not.toContain('enc:v1:');
    // Another node over the same database reads the same plaintext.
    const other = new OptionsService(h.server.ctx.db, box);
    await other.reload();
    expect(other.str('EpayKey')).toBe('plain-EpayKey-value');
    // Clearing a secret stores the empty string, not a sealed empty value.
    expect((await h.root.put('/api/option/', { key: 'WorkerValidKey', value: '' })).body.success).toBe(true);
    expect(await rawOption('WorkerValidKey')).toBe('');
  });

  it('relays with a sealed key: the upstream gets the plaintext key, the caller is charged exactly', async () => {
    await addChannel(h.root, { base_url: h.fake.url, key: 'sk-upstream-sealed', models: 'm-sealed' });
    const c = await addCaller(h);
    const spent = await spentBy(h, c, () => c.client.chat.completions.create({ model: 'm-sealed', messages: [{ role: 'user', content: 'hi' }] }));
    expect(h.fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk-upstream-sealed');
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(spent).toBeGreaterThan(0);
    expect(Number(logs[0]!.quota)).toBe(spent);
  });

  it('seals plaintext rows left by an earlier version at boot, once, even with two nodes at it together', async () => {
    const now = Math.floor(Date.now() / 1000);
    const ids: number[] = [];
    for (let i = 0; i < 5; i++) {
      await db().insertInto('channels').values({ type: 1, key: `sk-legacy-${i}`, name: `legacy-${i}`, models: 'm-legacy', group: 'default', created_time: now, other_info: '' }).execute();
      ids.push(Number((await db().selectFrom('channels').select('id').where('name', '=', `legacy-${i}`).executeTakeFirstOrThrow()).id));
    }
    await db().updateTable('options').set({ value: 'legacy-smtp-password' }).where('key', '=', 'SMTPToken').execute();
    const second = await openDb(h.server.ctx.config);
    try {
      await Promise.all([sealSecretsAtBoot(h.server.ctx.db, box, log), sealSecretsAtBoot(second, box, log)]);
    } finally {
      await second.destroy();
    }
    for (const [i, id] of ids.entries()) {
      const stored = await rawChannel(id);
      expect(SecretBox.isSealed(stored)).toBe(true);
      // One layer: it opens straight to the plaintext, not to another sealed value.
      expect(box.open(CHANNEL_KEY_PURPOSE, stored)).toBe(`sk-legacy-${i}`);
    }
    expect(box.open(optionPurpose('SMTPToken'), (await rawOption('SMTPToken'))!)).toBe('legacy-smtp-password');
    // Nothing is left to do on the next start.
    const again = await resealSecrets(h.server.ctx.db, box, 'plain');
    expect([again.channels.sealed, again.options.sealed]).toEqual([0, 0]);
  });

  it('rotation re-seals everything with the new key; the old key still opens old values until then', async () => {
    const rotated = new SecretBox({ current: 'rotated-secret', previous: [CRYPTO_SECRET] });
    const channelsBefore = (await db().selectFrom('channels').select('key').where('key', '!=', '').execute()).length;
    const first = await resealSecrets(h.server.ctx.db, rotated, 'rotate');
    expect(first.channels.rotated + first.channels.sealed).toBe(channelsBefore);
    expect(first.channels.unreadable).toEqual([]);
    // Every secret option but the one cleared above.
    expect(first.options.rotated).toBe(SECRET_OPTIONS.length - 1);
    const second = await resealSecrets(h.server.ctx.db, rotated, 'rotate');
    expect([second.channels.rotated, second.channels.sealed, second.options.rotated]).toEqual([0, 0, 0]);
    expect(second.channels.unchanged).toBe(channelsBefore);
    // The new key alone now opens every value.
    const newOnly = new SecretBox({ current: 'rotated-secret' });
    for (const r of await db().selectFrom('channels').select('key').where('key', '!=', '').execute()) {
      expect(SecretBox.kidOf(r.key)).toBe(newOnly.currentKid);
      expect(() => newOnly.open(CHANNEL_KEY_PURPOSE, r.key)).not.toThrow();
    }
    expect(newOnly.open(optionPurpose('EpayKey'), (await rawOption('EpayKey'))!)).toBe('plain-EpayKey-value');
    // Put this server's own key back for the tests that follow.
    await resealSecrets(h.server.ctx.db, new SecretBox({ current: CRYPTO_SECRET, previous: ['rotated-secret'] }), 'rotate');
  });

  it('a tampered key is a clear error for that channel only: the list still loads and the relay uses the others', async () => {
    const bad = await addChannel(h.root, { base_url: h.fake.url, key: 'sk-will-be-tampered', models: 'm-tampered', name: 'tampered' });
    const stored = await rawChannel(bad);
    await db().updateTable('channels').set({ key: `${stored.slice(0, -4)}AAAA` }).where('id', '=', bad).execute();
    h.server.ctx.relay.channels.invalidate();

    const list = await h.root.get('/api/channel/?p=0&page_size=100&id_sort=true');
    expect(list.body.success).toBe(true);
    expect(list.body.data.some((c: { id: number }) => c.id === bad)).toBe(true);
    expect((await h.root.get(`/api/channel/${bad}`)).body.data.name).toBe('tampered');

    const test = await h.root.get(`/api/channel/test/${bad}`);
    expect(test.body.success).toBe(false);
    expect(test.body.message).toMatch(new RegExp(`^The channel's key cannot be decrypted \\(check CRYPTO_SECRET / CRYPTO_SECRET_OLD\\): #${bad}: the stored ciphertext does not authenticate`));
    h.root.lang = 'zh-CN';
    expect((await h.root.get(`/api/channel/test/${bad}`)).body.message).toMatch(/^渠道密钥无法解密/);
    h.root.lang = 'en';

    const c = await addCaller(h);
    await expect(c.client.chat.completions.create({ model: 'm-tampered', messages: [{ role: 'user', content: 'hi' }] })).rejects.toMatchObject({ status: expect.any(Number) });
    const ok = await c.client.chat.completions.create({ model: 'm-sealed', messages: [{ role: 'user', content: 'still works' }] });
    expect(ok.choices[0]!.message.content).toBeTruthy();
    const logged = lines.filter((l) => l.channel === bad && l.level === 50);
    expect(logged.length).toBeGreaterThanOrEqual(1);
    expect(String(logged[0]!.msg)).toMatch(/left out of selection: its key cannot be decrypted/);
    // Nothing secret in any log line of this server.
    const all = JSON.stringify(lines);
    for (const s of ['sk-upstream-sealed', 'sk-will-be-tampered', 'plain-EpayKey-value', 'legacy-smtp-password']) expect(all).not.toContain(s);
  });

  it('a tampered secret option reads as unset, with an error in the log, and the option list still loads', async () => {
    const stored = (await rawOption('TurnstileSecretKey'))!;
    await db().updateTable('options').set({ value: `${stored.slice(0, -4)}AAAA` }).where('key', '=', 'TurnstileSecretKey').execute();
    await h.server.ctx.options.reloadKey('TurnstileSecretKey');
    expect(h.server.ctx.options.str('TurnstileSecretKey')).toBe('');
    expect(lines.some((l) => l.option === 'TurnstileSecretKey' && /cannot be decrypted/.test(String(l.msg)))).toBe(true);
    expect((await h.root.get('/api/option/')).body.success).toBe(true);
  });
});

const ROOT = path.resolve(import.meta.dirname, '../../../..');
const TSX = pathToFileURL(path.join(ROOT, 'node_modules/tsx/dist/loader.mjs')).href;

function secretsCli(args: string[], env: Record<string, string>) {
  const r = spawnSync(process.execPath, ['--conditions=source', '--import', TSX, path.join(ROOT, 'packages/server/src/crypto/cli.ts'), ...args], {
    env: { ...process.env, SQL_DSN: '', LOG_LEVEL: 'silent', SESSION_SECRET: '', CRYPTO_SECRET: '', CRYPTO_SECRET_OLD: '', ...env },
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe('npm run secrets:rotate (the CLI)', () => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ env: { CRYPTO_SECRET: 'cli-old-secret' } });
  });
  afterAll(() => h?.close());

  it('re-seals every secret with the current key, reports counts, and is safe to re-run', async () => {
    const id = await addChannel(h.root, { key: 'sk-cli-rotated' });
    expect((await h.root.put('/api/option/', { key: 'SMTPToken', value: 'cli-smtp' })).body.success).toBe(true);
    const env = { SQLITE_PATH: h.server.ctx.config.sqlitePath, CRYPTO_SECRET: 'cli-new-secret', CRYPTO_SECRET_OLD: 'cli-old-secret' };

    const status = secretsCli(['status'], env);
    expect(status.code).toBe(0);
    expect(status.out).toContain(`current key id ${keyIdOf('cli-new-secret')}`);
    expect(status.out).toMatch(new RegExp(`^ {2}${keyIdOf('cli-old-secret')}: 2$`, 'm'));

    const first = secretsCli(['rotate'], env);
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/channel keys: 0 sealed from plaintext, 1 re-sealed with the current key, 0 unchanged, 0 unreadable/);
    expect(first.out).toMatch(/secret options: 0 sealed from plaintext, 1 re-sealed with the current key, 0 unchanged, 0 unreadable/);
    const stored = (await h.server.ctx.db.db.selectFrom('channels').select('key').where('id', '=', id).executeTakeFirstOrThrow()).key;
    expect(new SecretBox({ current: 'cli-new-secret' }).open(CHANNEL_KEY_PURPOSE, stored)).toBe('sk-cli-rotated');

    const again = secretsCli(['rotate'], env);
    expect(again.code).toBe(0);
    expect(again.out).toMatch(/channel keys: 0 sealed from plaintext, 0 re-sealed with the current key, 1 unchanged, 0 unreadable/);

    // Without the key the values were sealed with, status names what does not open and fails.
    const lost = secretsCli(['status'], { SQLITE_PATH: env.SQLITE_PATH, CRYPTO_SECRET: 'some-other-secret' });
    expect(lost.code).toBe(1);
    expect(lost.out).toMatch(new RegExp(`unreadable channel #${id}: sealed with key id ${keyIdOf('cli-new-secret')}, which is not configured`));
    expect(secretsCli(['bogus'], env)).toMatchObject({ code: 2, err: expect.stringMatching(/^usage: npm run secrets:rotate/) });
  });
});
