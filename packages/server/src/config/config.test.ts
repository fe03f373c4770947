import { describe, expect, it } from 'vitest';
import os from 'node:os';
import { ConfigError, loadConfig, mysqlUrlFromDsn, parseSqlDsnKind, workerConfig, workerNodeId } from './config.js';

describe('loadConfig', () => {
  it('uses the reference defaults', () => {
    const c = loadConfig({}, '/srv/app');
    expect(c.port).toBe(3000);
    expect(c.host).toBe('0.0.0.0');
    expect(loadConfig({ HOST: ' 127.0.0.1 ' }).host).toBe('127.0.0.1');
    expect(c.sqlitePath).toBe('/srv/app/data/modelgate.db');
    expect(c.nodeType).toBe('master');
    expect(c.syncFrequencySec).toBe(60);
    expect(c.rateLimits.globalApi).toEqual({ enabled: true, max: 180, windowSec: 180 });
    expect(c.rateLimits.globalApiUser).toEqual({ enabled: true, max: 1800, windowSec: 180 });
    expect(c.rejectCommonPasswords).toBe(true);
    expect(c.rateLimits.globalWeb).toEqual({ enabled: true, max: 60, windowSec: 180 });
    expect(c.rateLimits.critical).toEqual({ enabled: true, max: 20, windowSec: 1200 });
    expect(c.sessionSecretGenerated).toBe(true);
    expect(c.sessionSecret).toMatch(/^[0-9a-f]{64}$/);
    expect(c.cryptoSecret).toBe(c.sessionSecret);
    // Not the per-start random secret: a generated key kept in a file seals stored secrets (crypto/key-ring.ts).
    expect(c.cryptoSecretFrom).toBe('generated');
    expect(c.cryptoSecretsOld).toEqual([]);
    expect(c.loginFailures).toEqual({ limit: 10, windowSec: 900 });
    expect(c.initialRootPassword).toBe('123456');
    expect(c.rateLimits.relayToken.enabled).toBe(false);
    expect(c.bodyLimits).toEqual({ relayJson: 20 * 1024 * 1024, relayAudio: 30 * 1024 * 1024, api: 2 * 1024 * 1024 });
    expect(c.trustedProxies).toEqual([]);
    expect(c.realtimeMaxSocketsPerToken).toBe(8);
    expect(Object.isFrozen(c)).toBe(true);
  });

  it('reads every variable it documents', () => {
    const c = loadConfig({
      PORT: '8080',
      SQLITE_PATH: 'x/one-api.db?_busy_timeout=5000',
      SESSION_SECRET: 's1',
      CRYPTO_SECRET: 'c1',
      CRYPTO_SECRET_OLD: 'c0,c-1',
      LOGIN_FAILURE_LIMIT: '5',
      LOGIN_FAILURE_WINDOW: '600',
      NODE_TYPE: 'slave',
      SYNC_FREQUENCY: '30',
      REDIS_CONN_STRING: 'redis://127.0.0.1:6379',
      GLOBAL_API_RATE_LIMIT: '10',
      GLOBAL_API_RATE_LIMIT_DURATION: '60',
      CRITICAL_RATE_LIMIT_ENABLE: 'false',
      INITIAL_ROOT_PASSWORD: 'secret-pass',
      RELAY_TOKEN_RATE_LIMIT: '100',
      RELAY_TOKEN_RATE_LIMIT_DURATION: '10',
      MAX_REQUEST_BODY_MB: '8',
      MAX_AUDIO_BODY_MB: '50',
      MAX_API_BODY_MB: '4',
      REALTIME_MAX_SOCKETS_PER_TOKEN: '3',
    }, '/w');
    expect(c).toMatchObject({
      port: 8080,
      sqlitePath: '/w/x/one-api.db',
      sessionSecret: 's1',
      sessionSecretGenerated: false,
      cryptoSecret: 'c1',
      cryptoSecretFrom: 'CRYPTO_SECRET',
      cryptoSecretsOld: ['c0', 'c-1'],
      loginFailures: { limit: 5, windowSec: 600 },
      nodeType: 'slave',
      syncFrequencySec: 30,
      redisConnString: 'redis://127.0.0.1:6379',
      initialRootPassword: 'secret-pass',
      realtimeMaxSocketsPerToken: 3,
    });
    expect(loadConfig({ REALTIME_MAX_SOCKETS_PER_TOKEN: '0' }).realtimeMaxSocketsPerToken).toBe(0);
    expect(c.rateLimits.globalApi).toEqual({ enabled: true, max: 10, windowSec: 60 });
    expect(c.rateLimits.critical.enabled).toBe(false);
    expect(c.rateLimits.relayToken).toEqual({ enabled: true, max: 100, windowSec: 10 });
    expect(c.bodyLimits).toEqual({ relayJson: 8 * 1024 * 1024, relayAudio: 50 * 1024 * 1024, api: 4 * 1024 * 1024 });
  });

  it.each([
    ['PORT', 'abc'],
    ['PORT', '70000'],
    ['SYNC_FREQUENCY', '0'],
    ['NODE_TYPE', 'leader'],
    ['SQL_DSN', 'oracle://x'],
    ['REDIS_CONN_STRING', 'localhost:6379'],
    ['GLOBAL_API_RATE_LIMIT_ENABLE', 'maybe'],
    ['SESSION_SECRET', 'random_string'],
    ['INITIAL_ROOT_PASSWORD', '123'],
    ['RELAY_TOKEN_RATE_LIMIT', '-1'],
    ['RELAY_TOKEN_RATE_LIMIT_DURATION', '0'],
    ['MAX_REQUEST_BODY_MB', '0'],
    ['MAX_AUDIO_BODY_MB', '2048'],
    ['MAX_API_BODY_MB', 'two'],
    ['REALTIME_MAX_SOCKETS_PER_TOKEN', '-1'],
    ['REALTIME_MAX_SOCKETS_PER_TOKEN', 'many'],
    ['TRUSTED_PROXIES', '10.0.0.0/8,nginx'],
    ['TRUSTED_PROXIES', '10.0.0.0/33'],
    ['TRUSTED_PROXIES', '2001:db8::/129'],
    ['TRUSTED_PROXIES', '10.0.0.1/'],
    ['TRUSTED_PROXIES', '999.1.1.1'],
    ['WORKERS', '0'],
    ['WORKERS', '257'],
    ['WORKERS', '1.5'],
    ['WORKERS', 'auto'],
  ])('stops on an invalid %s naming the variable', (name, value) => {
    let err: unknown;
    try {
      loadConfig({ [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).variable).toBe(name);
    expect((err as Error).message).toContain(name);
  });
});

describe('WORKERS', () => {
  it('runs one worker per CPU by default, and exactly the number asked for', () => {
    expect(loadConfig({}).workers).toBe(os.availableParallelism());
    expect(loadConfig({ WORKERS: '1' }).workers).toBe(1);
    expect(loadConfig({ WORKERS: '256' }).workers).toBe(256);
  });

  it('leaves room in NODE_ID for the suffix of the last worker (reservations.node_id holds 64 characters)', () => {
    expect(workerNodeId('gw', 3)).toBe('gw-w3');
    expect(loadConfig({ NODE_ID: 'n'.repeat(61), WORKERS: '10' }).nodeId).toHaveLength(61);
    expect(() => loadConfig({ NODE_ID: 'n'.repeat(61), WORKERS: '11' })).toThrow(/NODE_ID/);
    // One process keeps NODE_ID as it is, up to the full 64 characters.
    expect(loadConfig({ NODE_ID: 'n'.repeat(64), WORKERS: '1' }).nodeId).toHaveLength(64);
  });

  it('gives each worker its node id and a share of the machine\'s database connections', () => {
    const worker = workerConfig(loadConfig({ NODE_ID: 'gw', WORKERS: '4', SQL_MAX_OPEN_CONNS: '50' }), 3);
    expect(worker.nodeId).toBe('gw-w3');
    expect(worker.sqlMaxOpenConns).toBe(13);
    expect(workerConfig(loadConfig({ WORKERS: '64' }), 0).sqlMaxOpenConns).toBe(2);
  });
});

describe('TRUSTED_PROXIES', () => {
  it('takes IPs and CIDR ranges, IPv4 and IPv6, separated by commas and/or spaces', () => {
    const c = loadConfig({ TRUSTED_PROXIES: '127.0.0.1, 10.0.0.0/8,::1 fd00::/8\n192.168.1.10/32' });
    expect(c.trustedProxies).toEqual(['127.0.0.1', '10.0.0.0/8', '::1', 'fd00::/8', '192.168.1.10/32']);
    expect(Object.isFrozen(c.trustedProxies)).toBe(true);
  });

  it('names the first bad entry', () => {
    expect(() => loadConfig({ TRUSTED_PROXIES: '127.0.0.1,proxy.local' })).toThrow(/TRUSTED_PROXIES: "proxy.local" is not an IP address or CIDR range/);
  });
});

describe('SQL_DSN', () => {
  it.each([
    ['', 'sqlite'],
    ['local', 'sqlite'],
    ['postgres://u:p@h:5432/db', 'postgres'],
    ['postgresql://u@h/db', 'postgres'],
    ['mysql://root@127.0.0.1:3306/test', 'mysql'],
    ['root:pw@tcp(127.0.0.1:3306)/oneapi?parseTime=true', 'mysql'],
  ])('%s → %s', (dsn, kind) => expect(parseSqlDsnKind(dsn)).toBe(kind));

  it('converts the reference MySQL DSN form to a URL', () => {
    expect(mysqlUrlFromDsn('root:p@ss@tcp(db:3306)/oneapi?parseTime=true')).toBe('mysql://root:p%40ss@db:3306/oneapi');
    expect(mysqlUrlFromDsn('root@tcp(127.0.0.1:3306)/test')).toBe('mysql://root@127.0.0.1:3306/test');
  });
});

describe('LOG_SQL_DSN', () => {
  it('is empty by default: the logs stay in the main database', () => {
    expect(loadConfig({}).logSqlDsn).toBe('');
  });

  it('takes the PostgreSQL and MySQL forms of SQL_DSN', () => {
    expect(loadConfig({ LOG_SQL_DSN: 'postgres://u:p@logs:5432/logs' }).logSqlDsn).toBe('postgres://u:p@logs:5432/logs');
    expect(loadConfig({ LOG_SQL_DSN: 'root:pw@tcp(logs:3306)/logs' }).logSqlDsn).toBe('root:pw@tcp(logs:3306)/logs');
  });

  it.each(['local', 'local.db', 'oracle://x'])('refuses %s, naming LOG_SQL_DSN', (dsn) => {
    expect(() => loadConfig({ LOG_SQL_DSN: dsn })).toThrow(/LOG_SQL_DSN/);
  });
});
