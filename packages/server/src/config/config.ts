import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { parseIpList } from '../http/ip-list.js';

/**
 * Environment, parsed once into a frozen object (docs/architecture.md#configuration). Names and meanings follow the
 * reference (server-behaviour.md §10) so existing deployments keep their settings.
 */
export interface Config {
  /** Listen address (HOST): every interface by default, `127.0.0.1` behind a local reverse proxy. */
  host: string;
  port: number;
  sqlDsn: string;
  /**
   * LOG_SQL_DSN: a PostgreSQL or MySQL database of its own for the usage log, the hourly quota data
   * and the audit log (docs/deployment.md#a-separate-log-database); empty: they stay in the main one.
   */
  logSqlDsn: string;
  /**
   * LOG_PARTITION: `day` (default), `month` or `off` — the time partitions of the usage log on
   * PostgreSQL and MySQL, made ahead by the master node (docs/deployment.md#time-partitions-of-the-usage-log).
   */
  logPartition: 'day' | 'month' | 'off';
  sqlitePath: string;
  sqlMaxOpenConns: number;
  redisConnString: string;
  sessionSecret: string;
  sessionSecretGenerated: boolean;
  /**
   * The secret that seals stored secrets (crypto/secret-box.ts): CRYPTO_SECRET, else SESSION_SECRET.
   * With neither set it is not this value but a secret generated once and kept in a file beside
   * the SQLite database (crypto/key-ring.ts), since a per-start random key would lose every key.
   */
  cryptoSecret: string;
  cryptoSecretFrom: 'CRYPTO_SECRET' | 'SESSION_SECRET' | 'generated';
  /** CRYPTO_SECRET_OLD: earlier secrets (comma-separated) that still open values sealed with them. */
  cryptoSecretsOld: readonly string[];
  /**
   * Failed password sign-ins per account within `windowSec` before that account's sign-in is
   * refused for the rest of the window (LOGIN_FAILURE_LIMIT, 0 = off; LOGIN_FAILURE_WINDOW).
   */
  loginFailures: { limit: number; windowSec: number };
  nodeType: 'master' | 'slave';
  /**
   * This process's name in the ledger and job locks (NODE_ID; default host name and port). It must
   * be stable across restarts of one node and different between nodes sharing a database.
   */
  nodeId: string;
  /**
   * WORKERS: server processes sharing the port (node:cluster; default one per CPU). Above 1 each
   * worker is a node of its own, named `<NODE_ID>-w<n>` (workerNodeId).
   */
  workers: number;
  /** Seconds a node's reservation lease lasts without renewal before another node may release it. */
  ledgerLeaseSec: number;
  /** SHUTDOWN_TIMEOUT: how long in-flight requests (open streams) may run on after SIGTERM. */
  shutdownTimeoutSec: number;
  /** Per-node load shedding of relay requests (relay/overload.ts); 0 turns a limit off. */
  overload: { maxConcurrent: number; maxLagMs: number };
  /** Per-channel circuit breaking (relay/circuit-breaker.ts). */
  breaker: { failures: number; errorRate: number; minRequests: number; windowMs: number; backoffMs: number };
  /** Retries as a bounded share of requests (relay/circuit-breaker.ts). */
  retryBudget: { ratio: number; minPerWindow: number; windowMs: number };
  /**
   * A database outage (ledger/outage): DB_OUTAGE_MODE `serve` (default) relays from the caches with
   * a durable spool per node under SPOOL_DIR (default: `spool` beside the SQLite file), `refuse` answers 503.
   */
  dbOutage: { mode: 'serve' | 'refuse'; spoolDir: string; timeoutMs: number; probeMs: number };
  syncFrequencySec: number;
  initialRootPassword: string;
  frontendBaseUrl: string;
  webDistDir: string;
  rateLimits: {
    globalApi: RateLimitSetting;
    /** `/api` calls per signed-in console user (instead of the per-IP budget; docs/settings.md#rate-limits). */
    globalApiUser: RateLimitSetting;
    globalWeb: RateLimitSetting;
    critical: RateLimitSetting;
    /** Requests per API token per window on `/v1` (off unless RELAY_TOKEN_RATE_LIMIT > 0). */
    relayToken: RateLimitSetting;
  };
  /** Request body limits in bytes: `/v1` JSON routes, `/v1/audio` uploads, `/api` and everything else. */
  bodyLimits: {
    relayJson: number;
    relayAudio: number;
    api: number;
  };
  /**
   * REALTIME_MAX_SOCKETS_PER_TOKEN: `/v1/realtime` sockets one API token may hold open at once
   * (0 = no cap); counted in the rate-limit store, so across nodes when Redis is configured.
   */
  realtimeMaxSocketsPerToken: number;
  relayTimeoutSec: number;
  /** Seconds to wait for a stream's response headers before trying another channel (0 = none). */
  relayFirstByteTimeoutSec: number;
  streamingTimeoutSec: number;
  channelTestFrequencyMin: number;
  channelUpdateFrequencyMin: number;
  pollingIntervalSec: number;
  updateTask: boolean;
  /** How often the task poller asks the upstreams (TASK_POLL_INTERVAL_MS, default 15 s as the reference). */
  taskPollIntervalMs: number;
  generateDefaultToken: boolean;
  /** REJECT_COMMON_PASSWORDS (default true): refuse common and patterned passwords when one is chosen. */
  rejectCommonPasswords: boolean;
  logLevel: string;
  turnstileVerifyUrl: string;
  /** OAUTH_TIMEOUT (seconds, decimals allowed; default 5 like the reference): each call to a sign-in provider. */
  oauthTimeoutMs: number;
  /**
   * Peers (IPs and CIDR ranges) whose X-Forwarded-For is believed. Empty: the client IP is always
   * the TCP peer, so a caller cannot pick the address that rate limits and allow lists see.
   */
  trustedProxies: readonly string[];
}

export interface RateLimitSetting {
  enabled: boolean;
  max: number;
  windowSec: number;
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    detail: string,
  ) {
    super(`Invalid environment variable ${variable}: ${detail}`);
  }
}

type Env = Record<string, string | undefined>;

const MB = 1024 * 1024;

function str(env: Env, name: string, fallback: string): string {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

function int(env: Env, name: string, fallback: number, min = 0): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^-?\d+$/.test(raw.trim())) throw new ConfigError(name, `expected an integer, got "${raw}"`);
  const n = Number(raw.trim());
  if (n < min) throw new ConfigError(name, `must be at least ${min}, got ${n}`);
  return n;
}

/** A non-negative decimal (`0.5` minutes = 30 s); used where the reference takes whole numbers. */
function decimal(env: Env, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (!/^\d+(\.\d+)?$/.test(raw.trim())) throw new ConfigError(name, `expected a non-negative number, got "${raw}"`);
  return Number(raw.trim());
}

function bool(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const v = raw.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(v)) return true;
  if (['false', '0', 'no', 'off'].includes(v)) return false;
  throw new ConfigError(name, `expected true or false, got "${raw}"`);
}

function megabytes(env: Env, name: string, fallback: number): number {
  const n = int(env, name, fallback, 1);
  if (n > 1024) throw new ConfigError(name, `must be at most 1024 (MB), got ${n}`);
  return n * MB;
}

function rateLimit(env: Env, prefix: string, max: number, windowSec: number): RateLimitSetting {
  return {
    enabled: bool(env, `${prefix}_ENABLE`, true),
    max: int(env, prefix, max, 1),
    windowSec: int(env, `${prefix}_DURATION`, windowSec, 1),
  };
}

export function loadConfig(env: Env = process.env, cwd = process.cwd()): Readonly<Config> {
  const port = int(env, 'PORT', 3000, 0);
  if (port > 65535) throw new ConfigError('PORT', `must be at most 65535, got ${port}`);

  const sqlDsn = str(env, 'SQL_DSN', '');
  if (sqlDsn && !sqlDsn.startsWith('local')) {
    // Validated here so a typo stops start-up with the variable named, not a driver stack trace.
    parseSqlDsnKind(sqlDsn);
  }

  const logSqlDsn = str(env, 'LOG_SQL_DSN', '');
  if (logSqlDsn && parseSqlDsnKind(logSqlDsn, 'LOG_SQL_DSN') === 'sqlite') {
    throw new ConfigError('LOG_SQL_DSN', 'expected postgres://…, mysql://… or user:pass@tcp(host:port)/db (a separate log database is PostgreSQL or MySQL; unset keeps the logs in the main database)');
  }

  const logPartition = str(env, 'LOG_PARTITION', 'day').toLowerCase();
  if (logPartition !== 'day' && logPartition !== 'month' && logPartition !== 'off') {
    throw new ConfigError('LOG_PARTITION', `expected "day", "month" or "off", got "${logPartition}"`);
  }

  const nodeTypeRaw = str(env, 'NODE_TYPE', 'master').toLowerCase();
  if (nodeTypeRaw !== 'master' && nodeTypeRaw !== 'slave') {
    throw new ConfigError('NODE_TYPE', `expected "master" or "slave", got "${nodeTypeRaw}"`);
  }

  const nodeId = str(env, 'NODE_ID', '') || `${os.hostname()}:${port}`;
  if (nodeId.length > 64 || !/^[\w.:@-]+$/.test(nodeId)) {
    throw new ConfigError('NODE_ID', 'expected at most 64 letters, digits or . : @ _ -');
  }

  const workers = int(env, 'WORKERS', os.availableParallelism(), 1);
  if (workers > MAX_WORKERS) throw new ConfigError('WORKERS', `must be at most ${MAX_WORKERS}, got ${workers}`);
  // The ledger's reservations.node_id holds 64 characters: the suffix of the last worker must fit too.
  if (workers > 1 && workerNodeId(nodeId, workers - 1).length > 64) {
    throw new ConfigError('NODE_ID', `with WORKERS=${workers} the workers are named ${workerNodeId(nodeId, 0)} … ${workerNodeId(nodeId, workers - 1)}, longer than 64 characters: choose a shorter NODE_ID`);
  }

  let sessionSecret = str(env, 'SESSION_SECRET', '');
  const sessionSecretGenerated = sessionSecret === '';
  if (sessionSecret === 'random_string') {
    throw new ConfigError('SESSION_SECRET', 'replace the example value "random_string" with a real secret');
  }
  if (sessionSecretGenerated) sessionSecret = randomBytes(32).toString('hex');

  const redis = str(env, 'REDIS_CONN_STRING', '');
  if (redis && !/^rediss?:\/\//.test(redis)) {
    throw new ConfigError('REDIS_CONN_STRING', 'expected a redis:// or rediss:// URL');
  }

  const frontendBaseUrl = str(env, 'FRONTEND_BASE_URL', '').replace(/\/+$/, '');
  if (frontendBaseUrl && !/^https?:\/\//.test(frontendBaseUrl)) {
    throw new ConfigError('FRONTEND_BASE_URL', 'expected an http(s) URL');
  }

  const outageMode = str(env, 'DB_OUTAGE_MODE', 'serve').toLowerCase();
  if (outageMode !== 'serve' && outageMode !== 'refuse') {
    throw new ConfigError('DB_OUTAGE_MODE', `expected "serve" or "refuse", got "${outageMode}"`);
  }
  const sqlitePath = path.resolve(cwd, str(env, 'SQLITE_PATH', 'data/modelgate.db').replace(/\?.*$/, ''));

  const proxies = parseIpList(env.TRUSTED_PROXIES);
  if (proxies.invalid.length) {
    throw new ConfigError('TRUSTED_PROXIES', `"${proxies.invalid[0]}" is not an IP address or CIDR range (expected e.g. 127.0.0.1,10.0.0.0/8,::1)`);
  }

  const config: Config = {
    host: str(env, 'HOST', '0.0.0.0').trim(),
    port,
    sqlDsn,
    logSqlDsn,
    logPartition,
    sqlitePath,
    sqlMaxOpenConns: int(env, 'SQL_MAX_OPEN_CONNS', 50, 1),
    redisConnString: redis,
    sessionSecret,
    sessionSecretGenerated,
    cryptoSecret: str(env, 'CRYPTO_SECRET', '') || sessionSecret,
    cryptoSecretFrom: str(env, 'CRYPTO_SECRET', '') ? 'CRYPTO_SECRET' : sessionSecretGenerated ? 'generated' : 'SESSION_SECRET',
    cryptoSecretsOld: Object.freeze(str(env, 'CRYPTO_SECRET_OLD', '').split(',').map((s) => s.trim()).filter(Boolean)),
    loginFailures: { limit: int(env, 'LOGIN_FAILURE_LIMIT', 10, 0), windowSec: int(env, 'LOGIN_FAILURE_WINDOW', 900, 1) },
    nodeType: nodeTypeRaw,
    nodeId,
    workers,
    ledgerLeaseSec: int(env, 'LEDGER_LEASE_SEC', 60, 2),
    shutdownTimeoutSec: int(env, 'SHUTDOWN_TIMEOUT', 30, 0),
    overload: { maxConcurrent: int(env, 'RELAY_MAX_CONCURRENT', 4_000, 0), maxLagMs: int(env, 'RELAY_MAX_EVENT_LOOP_LAG_MS', 1_000, 0) },
    breaker: {
      failures: int(env, 'CHANNEL_BREAKER_FAILURES', 5, 0),
      errorRate: Math.min(100, int(env, 'CHANNEL_BREAKER_ERROR_RATE', 50, 0)) / 100,
      minRequests: 20,
      windowMs: 60_000,
      backoffMs: Math.max(0.1, decimal(env, 'CHANNEL_BREAKER_BACKOFF', 30)) * 1000,
    },
    retryBudget: { ratio: Math.min(100, int(env, 'RETRY_BUDGET_PERCENT', 20, 0)) / 100, minPerWindow: int(env, 'RETRY_BUDGET_MIN', 10, 0), windowMs: 10_000 },
    dbOutage: {
      mode: outageMode,
      spoolDir: path.resolve(cwd, str(env, 'SPOOL_DIR', '') || path.join(path.dirname(sqlitePath), 'spool')),
      timeoutMs: 5_000,
      probeMs: 1_000,
    },
    syncFrequencySec: int(env, 'SYNC_FREQUENCY', 60, 1),
    initialRootPassword: str(env, 'INITIAL_ROOT_PASSWORD', '123456'),
    frontendBaseUrl,
    webDistDir: path.resolve(cwd, str(env, 'WEB_DIST_DIR', defaultWebDist())),
    rateLimits: {
      globalApi: rateLimit(env, 'GLOBAL_API_RATE_LIMIT', 180, 180),
      // 10 calls a second for 3 minutes: far past brisk clicking (~5 calls per screen), still a cap on a runaway script.
      globalApiUser: rateLimit(env, 'GLOBAL_API_USER_RATE_LIMIT', 1800, 180),
      globalWeb: rateLimit(env, 'GLOBAL_WEB_RATE_LIMIT', 60, 180),
      critical: rateLimit(env, 'CRITICAL_RATE_LIMIT', 20, 1200),
      relayToken: {
        enabled: int(env, 'RELAY_TOKEN_RATE_LIMIT', 0, 0) > 0,
        max: Math.max(1, int(env, 'RELAY_TOKEN_RATE_LIMIT', 0, 0)),
        windowSec: int(env, 'RELAY_TOKEN_RATE_LIMIT_DURATION', 60, 1),
      },
    },
    bodyLimits: {
      relayJson: megabytes(env, 'MAX_REQUEST_BODY_MB', 20),
      relayAudio: megabytes(env, 'MAX_AUDIO_BODY_MB', 30),
      api: megabytes(env, 'MAX_API_BODY_MB', 2),
    },
    realtimeMaxSocketsPerToken: int(env, 'REALTIME_MAX_SOCKETS_PER_TOKEN', 8, 0),
    relayTimeoutSec: int(env, 'RELAY_TIMEOUT', 0, 0),
    relayFirstByteTimeoutSec: int(env, 'RELAY_FIRST_BYTE_TIMEOUT', 60, 0),
    streamingTimeoutSec: int(env, 'STREAMING_TIMEOUT', 60, 1),
    channelTestFrequencyMin: decimal(env, 'CHANNEL_TEST_FREQUENCY', 0),
    channelUpdateFrequencyMin: decimal(env, 'CHANNEL_UPDATE_FREQUENCY', 0),
    pollingIntervalSec: int(env, 'POLLING_INTERVAL', 0, 0),
    updateTask: bool(env, 'UPDATE_TASK', true),
    taskPollIntervalMs: int(env, 'TASK_POLL_INTERVAL_MS', 15_000, 50),
    generateDefaultToken: bool(env, 'GENERATE_DEFAULT_TOKEN', false),
    rejectCommonPasswords: bool(env, 'REJECT_COMMON_PASSWORDS', true),
    logLevel: str(env, 'LOG_LEVEL', 'info'),
    turnstileVerifyUrl: str(env, 'TURNSTILE_VERIFY_URL', 'https://challenges.cloudflare.com/turnstile/v0/siteverify'),
    oauthTimeoutMs: Math.max(100, Math.round(decimal(env, 'OAUTH_TIMEOUT', 5) * 1000)),
    trustedProxies: Object.freeze(proxies.entries),
  };
  if (config.initialRootPassword.length < 6) {
    throw new ConfigError('INITIAL_ROOT_PASSWORD', 'must be at least 6 characters');
  }
  return Object.freeze(config);
}

/** The most WORKERS accepted: far above any CPU count a gateway runs on, below what a typo asks for. */
export const MAX_WORKERS = 256;

/** A worker's node id: the slot (0 … WORKERS − 1) is kept across restarts, so a new worker recovers its predecessor's reservations. */
export function workerNodeId(nodeId: string, slot: number): string {
  return `${nodeId}-w${slot}`;
}

/**
 * The configuration of cluster worker `slot`: a node of its own, with its share of the machine's
 * database connections (SQL_MAX_OPEN_CONNS is sized against the database's connection limit per
 * machine; WORKERS full-size pools would multiply it). Two at least, so one slow query does not
 * queue every other request of the worker.
 */
export function workerConfig(config: Readonly<Config>, slot: number): Readonly<Config> {
  return Object.freeze({ ...config, nodeId: workerNodeId(config.nodeId, slot), sqlMaxOpenConns: Math.max(2, Math.ceil(config.sqlMaxOpenConns / config.workers)) });
}

function defaultWebDist(): string {
  // packages/server/{src,dist}/config → packages/web/dist
  return path.resolve(import.meta.dirname, '../../../web/dist');
}

export type SqlKind = 'sqlite' | 'postgres' | 'mysql';

/**
 * SQL_DSN forms (reference §10): `postgres://…` / `postgresql://…` → PostgreSQL; a value starting with
 * `local` or empty → SQLite; `mysql://…` or the Go form `user:pass@tcp(host:port)/db?…` → MySQL.
 */
export function parseSqlDsnKind(dsn: string, variable = 'SQL_DSN'): SqlKind {
  if (!dsn || dsn.startsWith('local')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(dsn)) return 'postgres';
  if (/^mysql:\/\//.test(dsn)) return 'mysql';
  if (/@tcp\([^)]+\)\/[^?]+/.test(dsn)) return 'mysql';
  throw new ConfigError(variable, 'expected postgres://…, mysql://…, user:pass@tcp(host:port)/db, or empty for SQLite');
}

/** Converts the Go-style MySQL DSN to a mysql:// URL understood by mysql2. */
export function mysqlUrlFromDsn(dsn: string): string {
  if (dsn.startsWith('mysql://')) return dsn;
  const m = /^([^:]*)(?::(.*))?@tcp\(([^)]+)\)\/([^?]+)(\?.*)?$/.exec(dsn);
  if (!m) throw new ConfigError('SQL_DSN', 'malformed MySQL DSN');
  const [, user, pass, hostPort, db] = m;
  const auth = pass ? `${encodeURIComponent(user!)}:${encodeURIComponent(pass)}` : encodeURIComponent(user!);
  return `mysql://${auth}@${hostPort}/${db}`;
}
