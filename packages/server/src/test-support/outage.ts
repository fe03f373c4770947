import { startFaultProxy, type FaultProxy } from '@modelgate/testkit';
import { afterAll, beforeAll } from 'vitest';
import type { SqlKind } from '../config/config.js';
import { addChannel, priceModels, startRelayHarness, type RelayHarness } from './relay-fixtures.js';

/**
 * A relay harness for the describe block that calls it (ledger/outage tests): on `kind`, reaching
 * PostgreSQL or MySQL through a fault proxy the test scripts (SQLite: directly), with `model`
 * priced on one channel to the fake upstream.
 */
export function outageHarness(kind: SqlKind, env: Record<string, string>, model: string): { h: () => RelayHarness; proxy: () => FaultProxy } {
  let proxy: FaultProxy | undefined;
  let h: RelayHarness | undefined;
  beforeAll(async () => {
    if (kind !== 'sqlite') proxy = await startFaultProxy(kind === 'postgres' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!);
    const hop = proxy;
    h = await startRelayHarness({ kind, databaseEnv: hop ? (e) => ({ ...e, SQL_DSN: hop.url(e.SQL_DSN) }) : undefined, env });
    await priceModels(h, [model]);
    await addChannel(h.root, { base_url: h.fake.url, models: model });
  });
  afterAll(async () => {
    proxy?.restore();
    await h?.close();
    await proxy?.close();
  });
  return { h: () => h!, proxy: () => proxy! };
}
