import { startFaultProxy, type FaultProxy } from '@modelgate/testkit';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { testDbKinds } from '../../test-support/test-db.js';

interface Ready {
  status: string;
  checks: { database: string; migrations: string; redis: string };
}

describe.each(testDbKinds())('health probes on %s', (kind) => {
  let srv: TestServer | undefined;
  afterEach(async () => {
    await srv?.close();
    srv = undefined;
  });

  it('/healthz answers while the process runs; /readyz is ready on a migrated database', async () => {
    srv = await startTestServer({ kind });
    const live = await fetch(`${srv.url}/healthz`);
    expect(live.status).toBe(200);
    expect(await live.json()).toMatchObject({ status: 'ok', version: srv.ctx.version, node: srv.ctx.config.nodeId });
    const ready = await fetch(`${srv.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(ready.headers.get('cache-control')).toBe('no-store');
    expect(await ready.json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'off' } });
  });

  it('/readyz names a migration the database has not run, and recovers once it has', async () => {
    srv = await startTestServer({ kind });
    const last = await srv.ctx.db.db.selectFrom('modelgate_migrations' as never).select('name' as never).orderBy('name' as never, 'desc').executeTakeFirstOrThrow();
    const name = (last as { name: string }).name;
    await srv.ctx.db.db.deleteFrom('modelgate_migrations' as never).where('name' as never, '=', name as never).execute();
    const res = await fetch(`${srv.url}/readyz`);
    expect(res.status).toBe(503);
    expect(((await res.json()) as Ready).checks).toEqual({ database: 'ok', migrations: `pending: ${name}`, redis: 'off' });
    await srv.ctx.db.db.insertInto('modelgate_migrations' as never).values({ name, timestamp: new Date().toISOString() } as never).execute();
    expect((await fetch(`${srv.url}/readyz`)).status).toBe(200);
  });
});

/**
 * Real outages: the node reaches PostgreSQL and Redis through a TCP hop the test cuts, as if the
 * server had stopped, then restores; the node must report it and recover without a restart.
 */
const networked = (['postgres', 'mysql'] as const).filter((k) => testDbKinds().includes(k));

describe.runIf(networked.length > 0 && process.env.TEST_REDIS_URL).each(networked)('readiness during an outage on %s', (kind) => {
  let srv: TestServer | undefined;
  let pgHop: FaultProxy;
  let redisHop: FaultProxy;
  afterEach(async () => {
    await srv?.close();
    await pgHop.close();
    await redisHop.close();
  });

  async function readyz(): Promise<{ status: number; body: Ready }> {
    const res = await fetch(`${srv!.url}/readyz`);
    return { status: res.status, body: (await res.json()) as Ready };
  }

  async function eventually(want: string): Promise<{ status: number; body: Ready }> {
    let last = await readyz();
    for (let i = 0; i < 50 && last.body.status !== want; i++) {
      await new Promise((r) => setTimeout(r, 200));
      last = await readyz();
    }
    return last;
  }

  it('answers "degraded" naming the part that is down while the node keeps serving, and is ready again without a restart', async () => {
    pgHop = await startFaultProxy(kind === 'postgres' ? process.env.TEST_PG_URL! : process.env.TEST_MYSQL_URL!);
    redisHop = await startFaultProxy(process.env.TEST_REDIS_URL!);
    srv = await startTestServer({
      kind,
      databaseEnv: (env) => ({ ...env, SQL_DSN: pgHop.url(env.SQL_DSN) }),
      env: { REDIS_CONN_STRING: redisHop.url() },
    });
    expect(await readyz()).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'ok' } } });

    // Without Redis no request fails (docs/reliability.md): the node stays in the load balancer.
    redisHop.cut();
    const noRedis = await readyz();
    expect(noRedis.status).toBe(200);
    expect(noRedis.body.status).toBe('degraded');
    expect(noRedis.body.checks.database).toBe('ok');
    expect(noRedis.body.checks.redis).not.toBe('ok');
    redisHop.restore();
    expect((await eventually('ready')).body.checks.redis).toBe('ok');

    // Without the database the relay serves its cached callers (DB_OUTAGE_MODE=serve, the default).
    pgHop.cut();
    const noDb = await readyz();
    expect(noDb.status).toBe(200);
    expect(noDb.body.status).toBe('degraded');
    expect(noDb.body.checks).toMatchObject({ migrations: 'unknown', redis: 'ok' });
    expect(noDb.body.checks.database).not.toBe('ok');
    // Liveness does not depend on the database: an orchestrator must not restart a node for it.
    expect((await fetch(`${srv.url}/healthz`)).status).toBe(200);
    pgHop.restore();
    expect(await eventually('ready')).toEqual({ status: 200, body: { status: 'ready', checks: { database: 'ok', migrations: 'ok', redis: 'ok' } } });
  });
});
