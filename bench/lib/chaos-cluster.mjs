// The chaos soak's cluster: its own PostgreSQL database and Redis database, the fault proxies'
// process, the two ModelGate nodes (logs to files in the run's temp folder), the operator set-up
// (prices, channels, users with limited balances and tokens), the settle wait and ledger:check.
import { execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { Pool } from 'undici';
import { exchange, MIX } from './chaos-traffic.mjs';
import { log, root, rootSession, waitFor } from './harness.mjs';

const PG_BASE = process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_BASE = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Starts bench/chaos-proxies.mjs in front of `targets` ({ name: URL }); scripting over IPC. */
export function proxyControl(targets) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(root, 'bench/chaos-proxies.mjs'), [JSON.stringify(targets)], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const waiting = new Map();
    let next = 0;
    child.once('exit', (code) => reject(new Error(`chaos-proxies exited with ${code}`)));
    child.on('message', (m) => {
      if (m.urls) {
        const send = (name, op, args = []) =>
          new Promise((ok, fail) => {
            const id = ++next;
            waiting.set(id, (r) => (r.ok ? ok(r) : fail(new Error(r.error))));
            child.send({ id, name, op, args });
          });
        resolve({
          urls: m.urls,
          send,
          restoreAll: () => Promise.all(Object.keys(targets).map((n) => send(n, 'restore'))),
          close: () => child.connected && child.disconnect(),
        });
        return;
      }
      waiting.get(m.id)?.(m);
      waiting.delete(m.id);
    });
  });
}

/** The environment of a chaos node: everything through the proxies, its own spool, a small pool. */
export function nodeEnv({ tmp, id, type, port, sqlDsn, redisUrl }) {
  return {
    PORT: String(port),
    NODE_ID: id,
    NODE_TYPE: type,
    SQL_DSN: sqlDsn,
    REDIS_CONN_STRING: redisUrl,
    SPOOL_DIR: path.join(tmp, `spool-${id}`),
    // Two nodes and the audit share a PostgreSQL server other people's tests use too.
    SQL_MAX_OPEN_CONNS: '10',
    SESSION_SECRET: 'chaos',
    GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_API_USER_RATE_LIMIT_ENABLE: 'false',
    GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
    CRITICAL_RATE_LIMIT_ENABLE: 'false',
    REJECT_COMMON_PASSWORDS: 'false',
    WEB_DIST_DIR: '/nonexistent-modelgate-web',
    LOG_LEVEL: 'info',
    WORKERS: '1',
  };
}

/** The message of the last fatal line process `pid` wrote to `logFile` (why a start failed). */
function lastFatal(logFile, pid) {
  const lines = fs.readFileSync(logFile, 'utf8').split('\n').filter((l) => l.includes(`"pid":${pid},`) && l.includes('"level":60'));
  if (!lines.length) return 'no fatal line logged';
  try {
    const j = JSON.parse(lines.at(-1));
    return `${j.msg}: ${j.err?.code ?? ''} ${j.err?.message ?? ''}`.trim();
  } catch {
    return lines.at(-1).slice(0, 200);
  }
}

/** Spawns one node (dist/main.js), output appended to <tmp>/<name>.log; resolves once it serves. */
export async function startChaosNode(name, tmp, env) {
  const dir = path.join(tmp, `node-${name}`);
  fs.mkdirSync(dir, { recursive: true });
  const logFile = path.join(tmp, `node-${name}.log`);
  const fd = fs.openSync(logFile, 'a');
  const child = spawn(process.execPath, [path.join(root, 'packages/server/dist/main.js')], { cwd: dir, env: { PATH: process.env.PATH, HOME: process.env.HOME ?? '/tmp', ...env }, stdio: ['ignore', fd, fd] });
  fs.closeSync(fd);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const url = `http://127.0.0.1:${env.PORT}`;
  const started = Date.now();
  await Promise.race([
    // A start that hangs is ended, so the next attempt has the port.
    waitFor(`${url}/api/status`, 120_000).catch((err) => {
      child.kill('SIGKILL');
      throw err;
    }),
    exited.then((e) => {
      const err = new Error(`node ${name} exited (${e.signal ?? `code ${e.code}`}) after ${((Date.now() - started) / 1000).toFixed(1)} s before serving: ${lastFatal(logFile, child.pid)}`);
      return Promise.reject(err);
    }),
  ]);
  return {
    name,
    url,
    child,
    exited,
    logFile,
    /** SIGTERM; how long the process took to exit (SIGKILL after 60 s, reported). */
    async stop() {
      const t = Date.now();
      if (child.exitCode !== null || child.signalCode !== null) return { name, ms: 0, exit: 'already gone' };
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      const e = await exited;
      clearTimeout(timer);
      return { name, ms: Date.now() - t, exit: e.signal ?? `code ${e.code}` };
    },
  };
}

async function api(url, headers, method, route, body) {
  const r = await fetch(`${url}${route}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const j = await r.json();
  if (!j.success) throw new Error(`${method} ${route}: ${j.message}`);
  return j.data;
}

/**
 * A fresh database chaos_<pid> and the first empty Redis database from 15 down (flushed at the
 * end only because it was empty at the start: ours). Returns the set-up steps and the audit's client.
 */
export async function openSetup(tmp) {
  const pgMod = (await import('pg')).default;
  const dbName = `chaos_${process.pid}`;
  const admin = new pgMod.Client({ connectionString: PG_BASE });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${dbName}`);
  await admin.end();
  const pgUrl = new URL(PG_BASE);
  pgUrl.pathname = `/${dbName}`;
  const { default: Redis } = await import('ioredis');
  let redisDb = -1;
  for (let i = 15; i >= 1 && redisDb < 0; i--) {
    const r = new Redis(`${REDIS_BASE.replace(/\/\d*$/, '')}/${i}`, { lazyConnect: true });
    await r.connect();
    if ((await r.dbsize()) === 0) redisDb = i;
    await r.quit();
  }
  if (redisDb < 0) throw new Error('no empty Redis database (1–15) to use');
  const redisUrl = `${REDIS_BASE.replace(/\/\d*$/, '')}/${redisDb}`;
  const pg = new pgMod.Client({ connectionString: pgUrl.toString() });
  const warmRecords = [];
  let pgOpen = false;

  return {
    dbName,
    redisDb,
    redisUrl,
    pgUrl: pgUrl.toString(),
    warmRecords,
    get pg() {
      return pg;
    },

    /** Prices, channels, users and tokens, as an operator and the users would set them up. Returns the callers. */
    async configure(url, up, prices, models) {
      await pg.connect();
      pgOpen = true;
      const h = await rootSession(url);
      const modelRatio = Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, p.ratio]));
      const completionRatio = Object.fromEntries(Object.entries(prices).map(([m, p]) => [m, p.completion]));
      await api(url, h, 'PUT', '/api/option/', { key: 'ModelRatio', value: JSON.stringify(modelRatio) });
      await api(url, h, 'PUT', '/api/option/', { key: 'CompletionRatio', value: JSON.stringify(completionRatio) });
      // Two tries: a failed attempt (5xx, reset) goes to the other OpenAI channel.
      await api(url, h, 'PUT', '/api/option/', { key: 'RetryTimes', value: '2' });
      const openaiModels = `${models.chat},${models.embed}`;
      await api(url, h, 'POST', '/api/channel/', { type: 1, name: 'openai-a', key: 'sk-fake', base_url: up.upA, models: openaiModels, group: 'default' });
      await api(url, h, 'POST', '/api/channel/', { type: 1, name: 'openai-b', key: 'sk-fake', base_url: up.upB, models: openaiModels, group: 'default' });
      await api(url, h, 'POST', '/api/channel/', { type: 14, name: 'anthropic', key: 'sk-ant', base_url: up.anth, models: models.anth, group: 'default' });
      // Users: a large balance, two that run dry during a 10-minute run, and a limited token on a large balance.
      const specs = [
        { name: 'chaosbig', quota: 500_000_000, remain: null, weight: 4 },
        { name: 'chaosmid', quota: 40_000, remain: null, weight: 2 },
        { name: 'chaossmall', quota: 6_000, remain: null, weight: 1 },
        { name: 'chaostoken', quota: 500_000_000, remain: 25_000, weight: 2 },
      ];
      const callers = [];
      for (const s of specs) {
        await api(url, h, 'POST', '/api/user/', { username: s.name, password: 'chaos-password-1', display_name: s.name });
        const found = await api(url, h, 'GET', `/api/user/search?keyword=${s.name}`);
        const user = (found.items ?? found).find((u) => u.username === s.name);
        await api(url, h, 'PUT', '/api/user/', { id: user.id, username: s.name, display_name: s.name, group: 'default', add_quota: s.quota });
        const login = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: s.name, password: 'chaos-password-1' }) });
        const uh = { 'content-type': 'application/json', cookie: login.headers.get('set-cookie').split(';')[0], 'new-api-user': String(user.id) };
        await api(url, uh, 'POST', '/api/token/', { name: 'chaos', expired_time: -1, unlimited_quota: s.remain === null, remain_quota: s.remain ?? 0 });
        const tokens = await api(url, uh, 'GET', '/api/token/?p=0&size=10');
        const key = `sk-${(tokens.items ?? tokens)[0].key}`;
        callers.push({ key, userId: user.id, weight: s.weight, name: s.name });
      }
      return callers;
    },

    /** Until each node has served each kind once (so node B has the channels and prices); those records count too. */
    async warmUp(nodes, callers) {
      const big = callers[0];
      for (const node of nodes) {
        const pool = new Pool(node.url, { connections: 2 });
        for (const [kind] of MIX.filter((m) => !['bad key', 'unknown model'].includes(m[0]))) {
          const end = Date.now() + 60_000;
          for (let i = 0; ; i++) {
            const rec = await exchange(pool, node.name, kind, big, -1 - warmRecords.length);
            warmRecords.push(rec);
            if (rec.outcome === 'served') break;
            if (Date.now() > end) throw new Error(`node ${node.name} does not serve ${kind}: ${rec.status} ${rec.reason} ${rec.example ?? ''}`);
            await sleep(500);
          }
        }
        await pool.close();
      }
    },

    /** Waits until no reservation is open (leases expire, the restarted node recovered) or `ms` passed. */
    async waitSettled(ms) {
      const t = Date.now();
      let open = -1;
      // What was still held when the traffic stopped, for the report: a finished request's hold
      // should not outlive it; one that does waits for its lease to run out.
      const leftover = (await pg.query('SELECT request_id, node_id, created_at, user_amount FROM reservations')).rows;
      while (Date.now() - t < ms) {
        open = Number((await pg.query('SELECT COUNT(*)::int AS n FROM reservations')).rows[0].n);
        if (open === 0) break;
        await sleep(2000);
      }
      const ids = leftover.map((r) => r.request_id);
      const outcomes = ids.length ? (await pg.query('SELECT request_id, state FROM ledger_requests WHERE request_id = ANY($1)', [ids])).rows : [];
      const state = new Map(outcomes.map((o) => [o.request_id, Number(o.state)]));
      return { ms: Date.now() - t, open, leftover: leftover.map((r) => ({ id: r.request_id, node: r.node_id, createdAt: Number(r.created_at), held: Number(r.user_amount), state: state.get(r.request_id) ?? null })) };
    },

    /** What is left in each node's spool folder (files and bytes). */
    spoolReport() {
      const out = [];
      for (const d of fs.readdirSync(tmp).filter((f) => f.startsWith('spool-'))) {
        const files = [];
        const walk = (p) => {
          for (const e of fs.readdirSync(p, { withFileTypes: true })) {
            if (e.isDirectory()) walk(path.join(p, e.name));
            else files.push(fs.statSync(path.join(p, e.name)).size);
          }
        };
        walk(path.join(tmp, d));
        out.push({ node: d.slice(6), files: files.length, bytes: files.reduce((a, b) => a + b, 0) });
      }
      return out;
    },

    /** `npm run ledger:check` against the run's database, directly (not through the proxy). */
    ledgerCheck() {
      try {
        const out = execFileSync(process.execPath, [path.join(root, 'packages/server/dist/ledger/cli.js')], { cwd: tmp, env: { ...process.env, SQL_DSN: pgUrl.toString() }, encoding: 'utf8' });
        return { code: 0, out };
      } catch (err) {
        return { code: err.status ?? -1, out: `${err.stdout ?? ''}${err.stderr ?? ''}` };
      }
    },

    async close(keep) {
      if (pgOpen) await pg.end().catch(() => {});
      if (keep) return log(`kept database ${dbName} and Redis db ${redisDb}`);
      const a = new pgMod.Client({ connectionString: PG_BASE });
      await a.connect();
      await a.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`);
      await a.end();
      const r = new Redis(redisUrl);
      await r.flushdb();
      await r.quit();
    },
  };
}
