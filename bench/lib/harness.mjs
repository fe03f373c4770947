// Shared bench plumbing: build, child processes, ModelGate start-up and set-up, /proc sampling.
import { execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CLK_TCK = 100;
const PAGE = 4096;

const children = [];
process.on('exit', () => children.forEach((c) => c.exitCode === null && c.kill('SIGKILL')));

/**
 * CPU pinning: on 4+ CPUs the load generator (this process) gets CPU 0, the fake upstreams CPU 1
 * and the measured proxies (floor, ModelGate) CPUs 2…, so what limits a proxy is its own work, not
 * the load generator or a fake scheduled onto its CPU. Targets run one at a time (interleaved), so
 * the floor and ModelGate never compete with each other. On 2 CPUs any placement makes two of the
 * three share a CPU, and in our runs that did not make the ratios steadier (±12 % and ±34 % against ±8 %
 * unpinned in one run, ±14 % in the next: docs/performance.md), so 2 CPUs stay unpinned unless BENCH_PIN=1 (then: load generator
 * on CPU 0, fakes and proxies on CPU 1). BENCH_PIN=0 never pins. Needs `taskset` (util-linux).
 */
const CPUS = os.availableParallelism();
const TASKSET = ['/usr/bin/taskset', '/bin/taskset'].find((p) => fs.existsSync(p));
function placement() {
  if (!TASKSET || CPUS < 2 || process.env.BENCH_PIN === '0') return null;
  if (CPUS >= 4) return { load: '0', fakes: '1', targets: `2-${CPUS - 1}` };
  return process.env.BENCH_PIN === '1' ? { load: '0', fakes: '1', targets: '1' } : null;
}
export const pinning = placement();

/** Pins `pid` to a CPU list (`role`: load, fakes or targets); a no-op without pinning. */
export function pin(pid, role) {
  if (!pinning) return;
  try {
    execFileSync(TASKSET, ['-a', '-p', '-c', pinning[role], String(pid)], { stdio: 'ignore' });
  } catch (err) {
    log(`could not pin pid ${pid} to CPUs ${pinning[role]}: ${err.message}`);
  }
}

/** One line for the report: how the processes were placed. */
export function pinningNote() {
  if (!pinning) return `not pinned (${CPUS} CPUs${TASKSET ? '' : ', no taskset'}${process.env.BENCH_PIN === '0' ? ', BENCH_PIN=0' : CPUS < 4 ? '; BENCH_PIN=1 pins on 2 CPUs' : ''})`;
  return `pinned: load generator on CPU ${pinning.load}, fakes on ${pinning.fakes}, floor and ModelGate on ${pinning.targets} (${CPUS} CPUs)`;
}
export function killAll() {
  for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
}

export function log(msg) {
  process.stdout.write(`${msg}\n`);
}

export function build() {
  log('building server (tsc -b)…');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/shared', 'packages/testkit', 'packages/server'], { cwd: root, stdio: 'inherit' });
}

/** Forks a bench server; `role` places it (fakes: the upstream fakes; targets: the floor proxies). */
export function forkReady(file, args = [], role = 'fakes') {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(root, 'bench', file), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    pin(child.pid, role);
    child.once('message', (m) => resolve({ child, url: m.url }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

export function freePort() {
  return new Promise((resolve, reject) => {
    const s = net.createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

export async function waitFor(url, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

/** Spawns the built server (dist) with its own temp dir; `env` adds to a bench default environment. */
export async function spawnModelGate(env = {}, dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-bench-'))) {
  const port = await freePort();
  // BENCH_NODE_ARGS: flags for the measured server only, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof` (a profile at exit).
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, path.join(root, 'packages/server/dist/main.js')], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      SQLITE_PATH: path.join(dir, 'bench.db'),
      SESSION_SECRET: 'bench',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      GLOBAL_WEB_RATE_LIMIT_ENABLE: 'false',
      CRITICAL_RATE_LIMIT_ENABLE: 'false',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: '/nonexistent-modelgate-web',
      // One process: the rows read this pid's CPU and memory, which with workers would be the idle primary's.
      WORKERS: '1',
      ...env,
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  pin(child.pid, 'targets');
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/status`);
  return { child, url, dir };
}

/** Logs in as root; returns headers for console calls. */
export async function rootSession(url) {
  const login = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: '123456' }) });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const uid = (await login.json()).data.id;
  return { 'content-type': 'application/json', cookie, 'new-api-user': String(uid) };
}

/** Gives made-up bench models a ratio (the relay refuses a model nobody priced), like an operator would. */
export async function priceModels(url, headers, models) {
  const options = (await (await fetch(`${url}/api/option/`, { headers })).json()).data;
  const table = JSON.parse(options.find((o) => o.key === 'ModelRatio')?.value ?? '{}');
  for (const m of models) table[m] = 1;
  const saved = await (await fetch(`${url}/api/option/`, { method: 'PUT', headers, body: JSON.stringify({ key: 'ModelRatio', value: JSON.stringify(table) }) })).json();
  if (!saved.success) throw new Error(`could not price ${models.join(', ')}: ${saved.message}`);
}

/** ModelGate set up like an operator would: one channel to `upstream`, one unlimited token. */
export async function startModelGate(upstream, env = {}) {
  const mg = await spawnModelGate(env);
  const headers = await rootSession(mg.url);
  // Enough balance for every row (the memory row holds 1000 streams' reservations at once), added
  // through the ledger like any admin top-up.
  const topUp = await fetch(`${mg.url}/api/user/`, { method: 'PUT', headers, body: JSON.stringify({ id: Number(headers['new-api-user']), add_quota: 1_000_000_000_000 }) });
  if (!(await topUp.json()).success) throw new Error('could not give the bench user a balance');
  await fetch(`${mg.url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify({ type: 1, name: 'fake', key: 'sk-fake', base_url: upstream, models: 'gpt-4o-mini', group: 'default' }) });
  await fetch(`${mg.url}/api/token/`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', unlimited_quota: true, expired_time: -1 }) });
  const tokens = await (await fetch(`${mg.url}/api/token/?p=0&size=10`, { headers })).json();
  return { ...mg, key: `sk-${tokens.data[0].key}` };
}

/** The live child processes of a process (a cluster's workers). */
function childPids(pid) {
  const out = [];
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const list = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim();
    if (list) out.push(...list.split(' ').map(Number));
  }
  return out;
}

/**
 * A fresh, empty PostgreSQL or MySQL database on the test servers (TEST_PG_URL / TEST_MYSQL_URL):
 * the server's environment for it, and `drop()`.
 */
export async function freshDatabase(kind) {
  const name = `mg_bench_${Date.now().toString(36)}`;
  const base = kind === 'postgres' ? process.env.TEST_PG_URL : process.env.TEST_MYSQL_URL;
  if (!base) throw new Error(`${kind}: set ${kind === 'postgres' ? 'TEST_PG_URL' : 'TEST_MYSQL_URL'}`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const sqlOn = async (statement) => {
    if (kind === 'postgres') {
      const pg = (await import('pg')).default;
      const c = new pg.Client({ connectionString: base });
      await c.connect();
      await c.query(statement);
      await c.end();
    } else {
      const mysql = await import('mysql2/promise');
      const c = await mysql.createConnection(base);
      await c.query(statement);
      await c.end();
    }
  };
  await sqlOn(`CREATE DATABASE ${name}`);
  return { env: { SQL_DSN: url.toString() }, drop: () => sqlOn(`DROP DATABASE IF EXISTS ${name}${kind === 'postgres' ? ' WITH (FORCE)' : ''}`) };
}

/** User + system CPU seconds of a process and its live children so far (a cluster: primary and workers). */
export function cpuSeconds(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const own = (Number(fields[11]) + Number(fields[12])) / CLK_TCK;
  return childPids(pid).reduce((sum, child) => sum + cpuSeconds(child), own);
}

/** Resident set size of a process in bytes. */
export function rssBytes(pid) {
  const statm = fs.readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ');
  return Number(statm[1]) * PAGE;
}

export function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : String(n));
