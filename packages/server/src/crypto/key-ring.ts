import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { SecretBox } from './secret-box.js';

/** Where a generated secret is kept when neither CRYPTO_SECRET nor SESSION_SECRET is set. */
export function generatedSecretPath(config: Pick<Config, 'sqlitePath'>): string {
  return path.join(path.dirname(config.sqlitePath), 'crypto-secret');
}

function readSecretFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** Reads the generated secret, creating it (0600, exclusively: two processes starting together agree) when absent. */
function ensureSecretFile(file: string): { secret: string; created: boolean } {
  const existing = readSecretFile(file);
  if (existing) return { secret: existing, created: false };
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    fs.writeFileSync(file, `${secret}\n`, { flag: 'wx', mode: 0o600 });
    return { secret, created: true };
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    return { secret: readSecretFile(file) ?? secret, created: false };
  }
}

/**
 * The session-signing secret when SESSION_SECRET is not set: generated once into
 * `<data dir>/session-secret` and read back on every start, so a restart (or a second process on
 * the same data folder) keeps everyone signed in.
 */
export function generatedSessionSecret(config: Pick<Config, 'sqlitePath'>): { secret: string; file: string; created: boolean } {
  const file = path.join(path.dirname(config.sqlitePath), 'session-secret');
  return { ...ensureSecretFile(file), file };
}

/**
 * The key ring of this process. Current: CRYPTO_SECRET, else SESSION_SECRET, else a secret
 * generated once into `<data dir>/crypto-secret`. Older keys that still open values:
 * CRYPTO_SECRET_OLD, SESSION_SECRET when CRYPTO_SECRET replaced it as the current one (values
 * sealed before CRYPTO_SECRET was set), and the generated file when it exists but is no longer
 * current. `secrets:rotate` moves everything to the current key.
 */
export function secretBoxFromConfig(
  config: Pick<Config, 'cryptoSecret' | 'cryptoSecretFrom' | 'cryptoSecretsOld' | 'sessionSecret' | 'sessionSecretGenerated' | 'sqlitePath'>,
  opts: { log?: Pick<Logger, 'warn'> } = {},
): SecretBox {
  const file = generatedSecretPath(config);
  const previous = [...config.cryptoSecretsOld];
  let current: string;
  if (config.cryptoSecretFrom === 'generated') {
    const { secret, created } = ensureSecretFile(file);
    current = secret;
    opts.log?.warn(
      `CRYPTO_SECRET is not set: stored secrets are sealed with the generated key in ${file}${created ? ' (just created)' : ''}. ` +
        'Back that file up with the database, or set CRYPTO_SECRET (all nodes must share it).',
    );
  } else {
    current = config.cryptoSecret;
    if (config.cryptoSecretFrom === 'CRYPTO_SECRET' && !config.sessionSecretGenerated) previous.push(config.sessionSecret);
    const generated = readSecretFile(file);
    if (generated) previous.push(generated);
  }
  return new SecretBox({ current, previous: previous.filter((s) => s !== current) });
}
