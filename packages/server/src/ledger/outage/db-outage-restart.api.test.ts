import { startFakeOpenAI, startFaultProxy } from '@modelgate/testkit';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { openDb } from '../../db/client.js';
import { multiNodeDbKinds, startNode } from '../../test-support/multinode.js';
import { rootTokenKey } from '../../test-support/node-caller.js';
import { createTestDatabase } from '../../test-support/test-db.js';
import { reconcile } from '../reconcile.js';

/**
 * Issue 38 item 2: a node SIGKILLed during a database outage has its answers' charges only in its
 * spool. Started again (same NODE_ID and SPOOL_DIR) once the database is back, it replays them:
 * every answer is charged exactly once and the ledger reconciles.
 */

const ANSWERS = 12;
const LEDGER_CHECK = fileURLToPath(new URL('../../../dist/ledger/cli.js', import.meta.url));

async function chat(url: string, key: string, stream: boolean): Promise<number> {
  const r = await fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    signal: AbortSignal.timeout(20_000),
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4', stream, messages: [{ role: 'user', content: 'hello' }] }),
  });
  const text = await r.text();
  if (stream && r.status === 200) expect(text).toContain('data: [DONE]');
  return r.status;
}

describe.each(multiNodeDbKinds())('a node killed during a database outage on %s', (kind) => {
  it('replays its spool when it starts again: every answer charged once', { timeout: 120_000 }, async () => {
    const db = await createTestDatabase(kind);
    const hop = await startFaultProxy(kind === 'postgres' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!);
    const fake = await startFakeOpenAI();
    const env = { ...db.env, SQL_DSN: hop.url(db.env.SQL_DSN!), REDIS_CONN_STRING: '', NODE_ID: `outage-kill-${kind}` };
    let node = await startNode(env);
    const handle = await openDb({ sqlDsn: db.env.SQL_DSN!, sqlitePath: '', sqlMaxOpenConns: 2 });
    try {
      const key = await rootTokenKey(node.url, fake.url);
      // Caches the token, its user and the channels on this node.
      expect(await chat(node.url, key, false)).toBe(200);

      hop.cut();
      for (let i = 0; i < ANSWERS; i++) expect(await chat(node.url, key, i % 2 === 0)).toBe(200);
      node.kill('SIGKILL');
      await node.exited;

      hop.restore();
      node = await startNode(env);
      await node.waitForOutput(new RegExp(`replayed ${ANSWERS} spooled ledger entries left by an earlier run`));

      const logs = await handle.db.selectFrom('logs').select(['quota', 'request_id']).where('type', '=', 2).execute();
      expect(logs).toHaveLength(ANSWERS + 1);
      expect(new Set(logs.map((l) => l.request_id)).size).toBe(ANSWERS + 1);
      const root = await handle.db.selectFrom('users').select(['used_quota', 'request_count']).where('id', '=', 1).executeTakeFirstOrThrow();
      expect(Number(root.used_quota)).toBe(logs.reduce((s, l) => s + Number(l.quota), 0));
      expect(Number(root.request_count)).toBe(ANSWERS + 1);
      const settled = await handle.db.selectFrom('ledger_requests').select('request_id').where('state', '=', 2).execute();
      expect(settled).toHaveLength(ANSWERS + 1);
      expect(await handle.db.selectFrom('reservations').selectAll().execute()).toEqual([]);
      expect((await reconcile(handle.db)).ok).toBe(true);
      // What an operator runs afterwards: `npm run ledger:check`.
      const check = spawnSync(process.execPath, [LEDGER_CHECK], { env: { PATH: process.env.PATH ?? '', SQL_DSN: db.env.SQL_DSN! }, encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    } finally {
      node.kill('SIGKILL');
      await node.exited;
      await handle.destroy();
      hop.restore();
      await hop.close();
      await fake.close();
      await db.drop();
    }
  });
});
