import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { pendingMigrations } from '../../db/migrate.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'cluster' | 'version' | 'config'>;

type CheckState = 'ok' | 'off' | string;

/** How long a readiness probe waits for each dependency before calling it down. */
const CHECK_TIMEOUT_MS = 2000;

function withTimeout<T>(p: Promise<T>, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${CHECK_TIMEOUT_MS} ms`)), CHECK_TIMEOUT_MS);
  });
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}

function problem(err: unknown): string {
  const e = err as { code?: unknown; message?: unknown };
  // A driver's code (ECONNREFUSED, 57P01) or its first line: enough for an operator, no secrets.
  const text = typeof e.code === 'string' ? e.code : String(e.message ?? err).split('\n')[0]!;
  return text.slice(0, 200);
}

/**
 * Probes for orchestrators and load balancers (docs/deployment.md#health). `/healthz`: the process
 * answers. `/readyz`: this node can serve — the database answers, Redis (when configured) answers,
 * and the schema is at this build's latest migration; otherwise 503 naming the failing part. Neither
 * needs a session, and neither is rate-limited, so a probe never locks out a user.
 */
export function healthRoutes(app: FastifyInstance, ctx: Deps): void {
  app.get('/healthz', async (_req, reply) => {
    return reply.header('Cache-Control', 'no-store').send({ status: 'ok', version: ctx.version, node: ctx.config.nodeId });
  });

  app.get('/readyz', async (_req, reply) => {
    const checks: Record<'database' | 'migrations' | 'redis', CheckState> = { database: 'ok', migrations: 'ok', redis: 'off' };
    try {
      await withTimeout(sql`select 1`.execute(ctx.db.db), 'the database');
      const pending = await withTimeout(pendingMigrations(ctx.db), 'the database');
      if (pending.length) checks.migrations = `pending: ${pending.join(', ')}`;
    } catch (err) {
      checks.database = problem(err);
      checks.migrations = 'unknown';
    }
    const redis = ctx.cluster.redis;
    if (redis) {
      try {
        await withTimeout(redis.ping(), 'Redis');
        checks.redis = 'ok';
      } catch (err) {
        checks.redis = problem(err);
      }
    }
    const ready = Object.values(checks).every((c) => c === 'ok' || c === 'off');
    return reply
      .code(ready ? 200 : 503)
      .header('Cache-Control', 'no-store')
      .send({ status: ready ? 'ready' : 'unavailable', checks });
  });
}
