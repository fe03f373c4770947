import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../config/config.js';
import { generatedSecretPath, secretBoxFromConfig } from './key-ring.js';
import { keyIdOf, SecretBox, SecretUnreadableError } from './secret-box.js';

const unreadable = (fn: () => unknown): SecretUnreadableError => {
  try {
    fn();
  } catch (e) {
    if (e instanceof SecretUnreadableError) return e;
    throw e;
  }
  throw new Error('expected the value not to open');
};

describe('SecretBox', () => {
  const box = new SecretBox({ current: 'current-secret' });

  it('seals as enc:v1:<kid>:<iv>:<tag>:<ct> with a fresh IV each time, and opens it again', () => {
    const a = box.seal('channel.key', 'sk-live-123');
    const b = box.seal('channel.key', 'sk-live-123');
    expect(a).toMatch(/^enc:v1:[A-Za-z0-9_-]{8}:[A-Za-z0-9_-]{16}:[A-Za-z0-9_-]{22}:[A-Za-z0-9_-]+$/);
    expect(a.split(':')[2]).toBe(keyIdOf('current-secret'));
    expect(a).not.toBe(b);
    expect(a).not.toContain('sk-live');
    expect(box.open('channel.key', a)).toBe('sk-live-123');
    expect(box.open('channel.key', b)).toBe('sk-live-123');
    // Unicode and multi-line values (several keys, a Vertex JSON key) survive.
    const json = '{"type":"service_account","private_key":"-----BEGIN KEY-----\\nabc\\n"}\n第二行';
    expect(box.open('channel.key', box.seal('channel.key', json))).toBe(json);
  });

  it('leaves an unset secret empty, and reads plaintext from before sealing as itself', () => {
    expect(box.seal('option.SMTPToken', '')).toBe('');
    expect(box.open('option.SMTPToken', '')).toBe('');
    expect(box.open('channel.key', 'sk-plaintext')).toBe('sk-plaintext');
    const sealed = box.seal('channel.key', 'x');
    expect(box.sealIfPlain('channel.key', sealed)).toBe(sealed);
    expect(SecretBox.isSealed(box.sealIfPlain('channel.key', 'x'))).toBe(true);
  });

  it('binds a value to its purpose: a channel key does not open as an option', () => {
    const sealed = box.seal('option.EpayKey', 'merchant-key');
    expect(unreadable(() => box.open('option.SMTPToken', sealed)).reason).toBe('tampered');
  });

  it('refuses altered ciphertext, tags, IVs and headers with a clear error', () => {
    const sealed = box.seal('channel.key', 'sk-original');
    const [p, v, kid, iv, tag, ct] = sealed.split(':') as [string, string, string, string, string, string];
    const flip = (s: string) => (s[0] === 'A' ? 'B' : 'A') + s.slice(1);
    for (const bad of [
      [p, v, kid, iv, tag, flip(ct)].join(':'),
      [p, v, kid, iv, flip(tag), ct].join(':'),
      [p, v, kid, flip(iv), tag, ct].join(':'),
    ]) {
      const e = unreadable(() => box.open('channel.key', bad));
      expect(e.reason).toBe('tampered');
      expect(e.message).toMatch(/does not authenticate under key id/);
    }
    expect(unreadable(() => box.open('channel.key', `${p}:${v}:${kid}:${iv}:${tag}`)).reason).toBe('malformed');
    expect(unreadable(() => box.open('channel.key', `${p}:${v}:${kid}:${iv.slice(2)}:${tag}:${ct}`)).reason).toBe('malformed');
    expect(unreadable(() => box.open('channel.key', 'enc:v1:garbage')).message).toMatch(/malformed/);
  });

  it('opens values sealed with an older key while sealing with the current one (rotation)', () => {
    const old = new SecretBox({ current: 'old-secret' });
    const sealedOld = old.seal('channel.key', 'sk-before-rotation');
    const rotated = new SecretBox({ current: 'new-secret', previous: ['old-secret'] });
    expect(rotated.kids).toEqual([keyIdOf('new-secret'), keyIdOf('old-secret')]);
    expect(rotated.open('channel.key', sealedOld)).toBe('sk-before-rotation');
    expect(rotated.isCurrent(sealedOld)).toBe(false);
    const resealed = rotated.reseal('channel.key', sealedOld);
    expect(SecretBox.kidOf(resealed)).toBe(rotated.currentKid);
    expect(rotated.reseal('channel.key', resealed)).toBe(resealed);
    // Once the old key is dropped, only the re-sealed value opens; the old one says which key it needs.
    const newOnly = new SecretBox({ current: 'new-secret' });
    expect(newOnly.open('channel.key', resealed)).toBe('sk-before-rotation');
    const e = unreadable(() => newOnly.open('channel.key', sealedOld));
    expect(e.reason).toBe('unknown-key');
    expect(e.message).toContain(keyIdOf('old-secret'));
    expect(e.message).toMatch(/CRYPTO_SECRET_OLD/);
  });
});

describe('the key ring from the environment', () => {
  const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'mg-keyring-'));

  it('uses CRYPTO_SECRET, and keeps SESSION_SECRET and CRYPTO_SECRET_OLD for older values', () => {
    const dir = tmp();
    const env = { SQLITE_PATH: path.join(dir, 'db.sqlite'), SESSION_SECRET: 'session-one', CRYPTO_SECRET: 'crypto-two', CRYPTO_SECRET_OLD: ' older-a , older-b ,' };
    const config = loadConfig(env);
    expect(config.cryptoSecretFrom).toBe('CRYPTO_SECRET');
    expect(config.cryptoSecretsOld).toEqual(['older-a', 'older-b']);
    const box = secretBoxFromConfig(config);
    expect(box.currentKid).toBe(keyIdOf('crypto-two'));
    expect(box.kids).toEqual(['crypto-two', 'older-a', 'older-b', 'session-one'].map(keyIdOf));
    // A deployment that ran on SESSION_SECRET alone and then set CRYPTO_SECRET still opens its keys.
    const before = secretBoxFromConfig(loadConfig({ SQLITE_PATH: env.SQLITE_PATH, SESSION_SECRET: 'session-one' }));
    expect(before.currentKid).toBe(keyIdOf('session-one'));
    expect(box.open('channel.key', before.seal('channel.key', 'sk-x'))).toBe('sk-x');
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('without any secret, generates one into a 0600 file beside the database and reuses it on the next start', () => {
    const dir = tmp();
    const config = loadConfig({ SQLITE_PATH: path.join(dir, 'data', 'db.sqlite') });
    expect(config.cryptoSecretFrom).toBe('generated');
    const warnings: string[] = [];
    const first = secretBoxFromConfig(config, { log: { warn: (m: string) => warnings.push(m) } });
    const file = generatedSecretPath(config);
    expect(file).toBe(path.join(dir, 'data', 'crypto-secret'));
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(warnings[0]).toMatch(/CRYPTO_SECRET is not set.*just created/);
    const sealed = first.seal('channel.key', 'sk-survives-restart');
    // A restart (a new random SESSION_SECRET) reads the same file: the key still opens.
    const second = secretBoxFromConfig(loadConfig({ SQLITE_PATH: path.join(dir, 'data', 'db.sqlite') }));
    expect(second.currentKid).toBe(first.currentKid);
    expect(second.open('channel.key', sealed)).toBe('sk-survives-restart');
    // Setting CRYPTO_SECRET later keeps the generated key as an older one until a rotation.
    const configured = secretBoxFromConfig(loadConfig({ SQLITE_PATH: path.join(dir, 'data', 'db.sqlite'), CRYPTO_SECRET: 'now-set' }));
    expect(configured.currentKid).toBe(keyIdOf('now-set'));
    expect(configured.open('channel.key', sealed)).toBe('sk-survives-restart');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});
