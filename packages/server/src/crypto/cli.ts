/**
 * `npm run secrets:rotate` (`node packages/server/dist/crypto/cli.js rotate`): re-seals every
 * stored secret (channel keys, secret options) with the current CRYPTO_SECRET, opening older
 * values with CRYPTO_SECRET_OLD; plaintext left from before sealing is sealed too. Prints the
 * counts; safe to re-run. `status` only reports. Exit status: 0 done, 1 some value did not open,
 * 2 bad arguments or environment.
 */
import { OPTION_KEYS, isSecretOption } from '@modelgate/shared';
import { ConfigError, loadConfig } from '../config/config.js';
import { openDb } from '../db/client.js';
import { secretBoxFromConfig } from './key-ring.js';
import { formatReseal, resealSecrets, unreadableSecrets } from './reseal.js';
import { SecretBox } from './secret-box.js';

const USAGE = `usage: npm run secrets:rotate            (node packages/server/dist/crypto/cli.js rotate)
       node packages/server/dist/crypto/cli.js status
  rotate: re-seal every stored secret with the current CRYPTO_SECRET (older values are opened with
          CRYPTO_SECRET_OLD, a comma-separated list); plaintext values are sealed too.
  status: how many secrets are sealed with which key id, and which do not open.
  The database is the one SQL_DSN / SQLITE_PATH name, as for the server.`;

async function main(): Promise<number> {
  const cmd = process.argv[2];
  if (cmd !== 'rotate' && cmd !== 'status') {
    console.error(USAGE);
    return cmd === '--help' || cmd === '-h' ? 0 : 2;
  }
  let config;
  try {
    config = loadConfig();
  } catch (e) {
    if (e instanceof ConfigError) {
      console.error(`[secrets] ${e.message}`);
      return 2;
    }
    throw e;
  }
  const box = secretBoxFromConfig(config, { log: { warn: (m: string) => console.error(`[secrets] ${m}`) } });
  const db = await openDb(config);
  try {
    console.log(`[secrets] current key id ${box.currentKid}; keys configured: ${box.kids.join(', ')}`);
    if (cmd === 'status') {
      const byKid = new Map<string, number>();
      const count = (v: string) => {
        const k = SecretBox.kidOf(v) ?? (SecretBox.isSealed(v) ? 'malformed' : 'plaintext');
        byKid.set(k, (byKid.get(k) ?? 0) + 1);
      };
      for (const r of await db.db.selectFrom('channels').select('key').where('key', '!=', '').execute()) count(r.key);
      const secretKeys = OPTION_KEYS.filter((k) => isSecretOption(k));
      for (const r of await db.db.selectFrom('options').select('value').where('key', 'in', secretKeys).where('value', '!=', '').execute()) count(r.value ?? '');
      for (const [k, n] of byKid) console.log(`  ${k === box.currentKid ? `${k} (current)` : k}: ${n}`);
      const bad = await unreadableSecrets(db, box);
      for (const b of bad) console.log(`  unreadable ${b}`);
      return bad.length ? 1 : 0;
    }
    const report = await resealSecrets(db, box, 'rotate');
    for (const line of formatReseal(report, 'rotate')) console.log(`[secrets] ${line}`);
    const bad = report.channels.unreadable.length + report.options.unreadable.length + report.twoFactor.unreadable.length;
    if (!bad) console.log('[secrets] done: every stored secret is sealed with the current key. Keys in CRYPTO_SECRET_OLD can be removed once every node runs with this CRYPTO_SECRET.');
    return bad ? 1 : 0;
  } finally {
    await db.destroy();
  }
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('[secrets] failed:', err instanceof Error ? err.message : err);
    process.exit(2);
  },
);
