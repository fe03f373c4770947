#!/usr/bin/env node
/**
 * `npm run bench`: ModelGate vs the floor (bare node:http + undici pass-through) vs direct, all
 * against the same fake OpenAI upstream on loopback, each server in its own process. Prints the
 * DESIGN.md §7 ratios in one run. Bounded to well under three minutes.
 *
 *   BENCH_SECONDS=8   duration of each throughput run
 *   BENCH_LATENCY_N=2000, BENCH_STREAM_N=300
 */
import autocannon from 'autocannon';
import { execFileSync, fork, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const LAT_N = Number(process.env.BENCH_LATENCY_N ?? 2000);
const STREAM_N = Number(process.env.BENCH_STREAM_N ?? 300);
const CLK_TCK = 100;

const children = [];
process.on('exit', () => children.forEach((c) => c.kill('SIGKILL')));

function log(msg) {
  process.stdout.write(`${msg}\n`);
}

function build() {
  log('building server (tsc -b)…');
  execFileSync(process.execPath, [path.join(root, 'node_modules/typescript/bin/tsc'), '-b', 'packages/shared', 'packages/testkit', 'packages/server'], { cwd: root, stdio: 'inherit' });
}

function forkReady(file, args = []) {
  return new Promise((resolve, reject) => {
    const child = fork(path.join(root, 'bench', file), args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(child);
    child.once('message', (m) => resolve({ child, url: m.url }));
    child.once('exit', (code) => reject(new Error(`${file} exited with ${code}`)));
  });
}

async function waitFor(url, ms = 30_000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    try {
      const r = await fetch(url);
      if (r.ok) return;
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not come up`);
}

async function startModelGate(upstream) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-bench-'));
  const port = 20000 + Math.floor(Math.random() * 20000);
  const child = spawn(process.execPath, [path.join(root, 'packages/server/dist/main.js')], {
    cwd: dir,
    env: {
      ...process.env,
      PORT: String(port),
      SQLITE_PATH: path.join(dir, 'bench.db'),
      SESSION_SECRET: 'bench',
      GLOBAL_API_RATE_LIMIT_ENABLE: 'false',
      CRITICAL_RATE_LIMIT_ENABLE: 'false',
      LOG_LEVEL: 'warn',
      WEB_DIST_DIR: '/nonexistent-modelgate-web',
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  await waitFor(`${url}/api/status`);
  // Set up like an operator would: log in, add a channel, create an unlimited token.
  const login = await fetch(`${url}/api/user/login`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ username: 'root', password: '123456' }) });
  const cookie = login.headers.get('set-cookie').split(';')[0];
  const uid = (await login.json()).data.id;
  const headers = { 'content-type': 'application/json', cookie, 'new-api-user': String(uid) };
  await fetch(`${url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify({ type: 1, name: 'fake', key: 'sk-fake', base_url: upstream, models: 'gpt-4o-mini', group: 'default' }) });
  await fetch(`${url}/api/token/`, { method: 'POST', headers, body: JSON.stringify({ name: 'bench', unlimited_quota: true, expired_time: -1 }) });
  const tokens = await (await fetch(`${url}/api/token/?p=0&size=10`, { headers })).json();
  return { child, url, key: `sk-${tokens.data[0].key}`, dir };
}

function cpuTicks(pid) {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]);
}

const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], max_tokens: 16 });
const CHAT_STREAM = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], stream: true });

async function throughput(target, key, pid) {
  const opts = { url: `${target}/v1/chat/completions`, method: 'POST', body: CHAT, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } };
  await autocannon({ ...opts, connections: 64, duration: 2 }); // warm-up
  const before = pid ? cpuTicks(pid) : 0;
  const r = await autocannon({ ...opts, connections: 64, duration: SECONDS });
  const ticks = pid ? cpuTicks(pid) - before : 0;
  const total = r.requests.total;
  return { rps: r.requests.average, total, non2xx: r.non2xx + r.errors, cpuUsPerReq: pid ? ((ticks / CLK_TCK) * 1e6) / total : 0 };
}

function pct(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function latency(target, key, body, n, firstByte) {
  const pool = new Pool(target, { connections: 1 });
  const samples = [];
  for (let i = 0; i < n + 50; i++) {
    const t0 = process.hrtime.bigint();
    const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` } });
    let t1 = 0n;
    for await (const _chunk of res.body) {
      if (!t1) t1 = process.hrtime.bigint();
      if (firstByte) continue;
    }
    const t2 = process.hrtime.bigint();
    if (res.statusCode !== 200) throw new Error(`status ${res.statusCode} from ${target}`);
    if (i >= 50) samples.push(Number((firstByte ? t1 : t2) - t0) / 1e6);
  }
  await pool.close();
  samples.sort((a, b) => a - b);
  return { p50: pct(samples, 50), p99: pct(samples, 99) };
}

const f = (n, d = 2) => (Number.isFinite(n) ? n.toFixed(d) : String(n));

async function main() {
  const t0 = Date.now();
  build();
  const fake = await forkReady('fake-upstream.mjs');
  const floor = await forkReady('floor-proxy.mjs', [fake.url]);
  const mg = await startModelGate(fake.url);
  log(`fake ${fake.url}  floor ${floor.url}  modelgate ${mg.url}`);

  log(`\nnon-stream throughput, 64 connections, ${SECONDS}s each…`);
  const tDirect = await throughput(fake.url, 'sk-direct', 0);
  const tFloor = await throughput(floor.url, 'sk-floor', floor.child.pid);
  const tMg = await throughput(mg.url, mg.key, mg.child.pid);

  log(`latency at 1 connection, ${LAT_N} requests each…`);
  const lDirect = await latency(fake.url, 'x', CHAT, LAT_N, false);
  const lFloor = await latency(floor.url, 'x', CHAT, LAT_N, false);
  const lMg = await latency(mg.url, mg.key, CHAT, LAT_N, false);

  log(`stream first byte, ${STREAM_N} streams each…`);
  const sDirect = await latency(fake.url, 'x', CHAT_STREAM, STREAM_N, true);
  const sFloor = await latency(floor.url, 'x', CHAT_STREAM, STREAM_N, true);
  const sMg = await latency(mg.url, mg.key, CHAT_STREAM, STREAM_N, true);

  const rows = [
    ['', 'direct', 'floor', 'modelgate'],
    ['req/s @64', f(tDirect.rps, 0), f(tFloor.rps, 0), f(tMg.rps, 0)],
    ['errors', String(tDirect.non2xx), String(tFloor.non2xx), String(tMg.non2xx)],
    ['CPU µs/req', '-', f(tFloor.cpuUsPerReq, 0), f(tMg.cpuUsPerReq, 0)],
    ['p50 ms @1', f(lDirect.p50, 3), f(lFloor.p50, 3), f(lMg.p50, 3)],
    ['p99 ms @1', f(lDirect.p99, 3), f(lFloor.p99, 3), f(lMg.p99, 3)],
    ['stream 1st byte p50 ms', f(sDirect.p50, 3), f(sFloor.p50, 3), f(sMg.p50, 3)],
  ];
  log('');
  for (const r of rows) log(r.map((c, i) => (i === 0 ? c.padEnd(24) : c.padStart(11))).join(''));
  log('\nratios (DESIGN.md §7 budgets):');
  log(`  throughput modelgate / floor      ${f(tMg.rps / tFloor.rps)}   (budget ≥ 0.60)`);
  log(`  CPU per request modelgate / floor ${f(tMg.cpuUsPerReq / tFloor.cpuUsPerReq)}   (budget ≤ 2.00)`);
  log(`  added latency over direct p50     ${f(lMg.p50 - lDirect.p50, 3)} ms (budget ≤ 0.3; floor adds ${f(lFloor.p50 - lDirect.p50, 3)})`);
  log(`  added latency over direct p99     ${f(lMg.p99 - lDirect.p99, 3)} ms (budget ≤ 1.0; floor adds ${f(lFloor.p99 - lDirect.p99, 3)})`);
  log(`  stream first byte vs floor p50    ${f(sMg.p50 - sFloor.p50, 3)} ms (budget ≤ 1.0)`);
  log(`\ndone in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  for (const c of children) c.kill('SIGTERM');
  fs.rmSync(mg.dir, { recursive: true, force: true });
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
