#!/usr/bin/env node
/**
 * `npm run bench -- --chaos` (issue 38 item 6): two ModelGate nodes (separate processes, NODE_IDs
 * chaos-a and chaos-b) on one fresh PostgreSQL database and one Redis database, each reaching
 * PostgreSQL, Redis and the upstream fakes through fault proxies (bench/chaos-proxies.mjs), under
 * mixed traffic from a pool of client loops (lib/chaos-traffic.mjs) with several users and limited
 * tokens, while a fault schedule resets database connections, takes the database away for 30 s,
 * blackholes Redis for 30 s, makes upstreams fail (5xx, resets) and slow (latency, drip), cuts
 * streams mid-way and SIGKILLs node B during the database outage (restarted on the same NODE_ID
 * and spool). Then, faults off, reservations settled or their leases run out (at most
 * BENCH_CHAOS_SETTLE_SEC) and both nodes stopped: `ledger:check` and the audit
 * (lib/chaos-audit.mjs); a node that stopped with entries in its spool is started and stopped
 * once more (its next start replays them) and audited again. A markdown report goes to
 * bench/results/chaos-<date>.md. Exit 1 when a check of the first audit failed.
 *
 *   node bench/chaos.mjs [--no-build]
 *   BENCH_CHAOS_MINUTES=10 BENCH_CHAOS_LOOPS=24 BENCH_CHAOS_OUTAGE_SEC=30 BENCH_CHAOS_SETTLE_SEC=150
 *   TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/test), TEST_REDIS_URL (default redis://127.0.0.1:6379)
 *   BENCH_CHAOS_KEEP=1 keeps the run's temp folder (node logs, spools) and database.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { audit, balanceTotals, PRICES } from './lib/chaos-audit.mjs';
import { nodeEnv, openSetup, proxyControl, startChaosNode } from './lib/chaos-cluster.mjs';
import { chaosReport } from './lib/chaos-report.mjs';
import { MODELS, runTraffic } from './lib/chaos-traffic.mjs';
import { build, forkReady, freePort, killAll, log, root } from './lib/harness.mjs';

const MINUTES = Number(process.env.BENCH_CHAOS_MINUTES ?? 10);
const LOOPS = Number(process.env.BENCH_CHAOS_LOOPS ?? 24);
const OUTAGE_MS = Number(process.env.BENCH_CHAOS_OUTAGE_SEC ?? 30) * 1000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * The fault schedule, as fractions of the run (so a 3-minute run gets every fault too); the
 * database and Redis outages last OUTAGE_MS whatever the run's length. Each entry: at, label,
 * on(), and for a window its length and off().
 */
function schedule(T, f) {
  const win = Math.max(10_000, Math.round(T * 0.06));
  const every = (ms, fn) => {
    const t = setInterval(fn, ms);
    return () => clearInterval(t);
  };
  let stopResets = null;
  return [
    { at: 0.05, label: 'reset every database connection', on: () => f.proxy('pg', 'reset') },
    { at: 0.09, len: win, label: 'upstream A answers 500', on: () => f.fake('openaiA', { status: 500 }), off: () => f.fake('openaiA', null) },
    { at: 0.15, len: OUTAGE_MS, label: 'Redis blackholed', on: () => f.proxy('redis', 'blackhole'), off: () => f.proxy('redis', 'restore') },
    { at: 0.22, label: 'reset every database connection', on: () => f.proxy('pg', 'reset') },
    { at: 0.25, len: win, label: 'upstreams slow: B +300 ms per chunk, Anthropic drips 16 B / 40 ms', on: () => (f.proxy('upB', 'latency', 300), f.proxy('anth', 'drip', 16, 40)), off: () => (f.proxy('upB', 'restore'), f.proxy('anth', 'restore')) },
    { at: 0.33, len: win, label: 'streams cut mid-way (every upstream connection reset after 700 B)', on: () => ['upA', 'upB', 'anth'].forEach((p) => f.proxy(p, 'cutAfter', 700)), off: () => ['upA', 'upB', 'anth'].forEach((p) => f.proxy(p, 'restore')) },
    {
      at: 0.41,
      len: win,
      label: 'upstream A connections reset every second, upstream B answers 502, Anthropic 529',
      on: () => {
        stopResets = every(1000, () => f.proxy('upA', 'reset'));
        f.fake('openaiB', { status: 502 });
        f.fake('anth', { status: 529 });
      },
      off: () => {
        stopResets?.();
        f.fake('openaiB', null);
        f.fake('anth', null);
      },
    },
    { at: 0.48, label: 'reset every database connection', on: () => f.proxy('pg', 'reset') },
    { at: 0.52, len: OUTAGE_MS, label: 'database outage (connections reset, new ones refused)', on: () => f.proxy('pg', 'cut'), off: () => f.proxy('pg', 'restore') },
    // Killed while it holds spooled charges: its restart (same NODE_ID and spool) must replay them.
    { at: 0.52 + (0.6 * OUTAGE_MS) / T, label: 'SIGKILL node B during the database outage (out of rotation; started again every 3 s from 5 s on, same NODE_ID and spool, until it serves)', background: true, on: () => f.killB() },
    // A database that hangs rather than refuses: queries wait on open connections with no answer.
    { at: 0.7, len: 15_000, label: 'database blackholed (connections accepted, nothing answers)', on: () => f.proxy('pg', 'blackhole'), off: () => f.proxy('pg', 'restore') },
    { at: 0.75, label: 'reset every database connection', on: () => f.proxy('pg', 'reset') },
    { at: 0.8, len: win, label: 'upstream A connections reset every 2 s, upstream B +200 ms latency', on: () => ((stopResets = every(2000, () => f.proxy('upA', 'reset'))), f.proxy('upB', 'latency', 200)), off: () => (stopResets?.(), f.proxy('upB', 'restore')) },
    { at: 0.88, label: 'reset every database connection', on: () => f.proxy('pg', 'reset') },
  ];
}

/** Which server the run measured: the commit, and whether its sources had uncommitted changes. */
function buildNote() {
  try {
    const head = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim();
    const dirty = execFileSync('git', ['status', '--porcelain', '--', 'packages/server/src', 'packages/shared/src'], { cwd: root, encoding: 'utf8' }).trim();
    return `commit ${head}${dirty ? ` plus ${dirty.split('\n').length} uncommitted change(s) under packages/server/src and packages/shared/src` : ''}`;
  } catch {
    return 'commit unknown (no git)';
  }
}

async function runFaults(T, t0, f, timeline, windows) {
  const events = schedule(T, f);
  const pending = [];
  for (const e of events) {
    const startAt = t0 + e.at * T;
    await sleep(Math.max(0, startAt - Date.now()));
    const rel = () => `${((Date.now() - t0) / 1000).toFixed(0)} s`;
    timeline.push(`${rel()}: ${e.label}${e.len ? ` — for ${(e.len / 1000).toFixed(0)} s` : ''}`);
    log(`  [${rel()}] ${e.label}`);
    // The restart of a killed node takes as long as it takes; the schedule goes on meanwhile.
    if (e.background) pending.push(e.on());
    else await e.on();
    if (e.len) {
      const w = { label: e.label, from: Date.now(), to: null };
      windows.push(w);
      pending.push(
        sleep(e.len).then(async () => {
          await e.off();
          w.to = Date.now();
          timeline.push(`${rel()}: end of “${e.label}”`);
          log(`  [${rel()}] end of “${e.label}”`);
        }),
      );
    }
  }
  await Promise.all(pending);
}

export async function runChaos() {
  const T = MINUTES * 60_000;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-chaos-'));
  const setup = await openSetup(tmp);
  const timeline = [];
  const windows = [];
  let nodes = [];
  let proxies = null;
  try {
    const fakes = {
      openaiA: await forkReady('fake-upstream.mjs', [JSON.stringify({ chunkDelayMs: 30 })]),
      openaiB: await forkReady('fake-upstream.mjs', [JSON.stringify({ chunkDelayMs: 30 })]),
      anth: await forkReady('fake-anthropic.mjs', [JSON.stringify({ chunkDelayMs: 30 })]),
    };
    proxies = await proxyControl({ pg: setup.pgUrl, redis: setup.redisUrl, upA: fakes.openaiA.url, upB: fakes.openaiB.url, anth: fakes.anth.url });
    const ports = { a: await freePort(), b: await freePort() };
    const env = (id, type, port) => nodeEnv({ tmp, id, type, port, sqlDsn: proxies.urls.pg, redisUrl: proxies.urls.redis });
    log(`chaos: database ${setup.dbName}, Redis db ${setup.redisDb}, temp ${tmp}`);
    const a = await startChaosNode('A', tmp, env('chaos-a', 'master', ports.a));
    const b = await startChaosNode('B', tmp, env('chaos-b', 'slave', ports.b));
    nodes = [a, b];
    const callers = await setup.configure(a.url, { upA: proxies.urls.upA, upB: proxies.urls.upB, anth: proxies.urls.anth }, PRICES, MODELS);
    const initial = await balanceTotals(setup.pg);
    await setup.warmUp(nodes, callers);
    const live = new Set(nodes);
    let t0 = Date.now();
    const faults = {
      proxy: (name, op, ...args) => proxies.send(name, op, args),
      fake: (name, fault) => fetch(`${fakes[name].url}/__fake/fault`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fault) }).then((r) => r.text()),
      killB: async () => {
        const killedAt = Date.now();
        b.child.kill('SIGKILL');
        // A load balancer's health check takes it out; requests in flight on it are lost with it.
        live.delete(b);
        await b.exited;
        await sleep(5000);
        // As a supervisor would: start it again until it serves (it cannot start while the database is away).
        let b2 = null;
        const attempts = [];
        while (!b2) {
          const at = ((Date.now() - t0) / 1000).toFixed(0);
          b2 = await startChaosNode('B', tmp, env('chaos-b', 'slave', ports.b)).catch(async (err) => {
            attempts.push(`start at ${at} s: ${err.message}`);
            if (Date.now() - killedAt > 300_000) throw err;
            await sleep(3000);
            return null;
          });
        }
        live.add(b2);
        nodes = [a, b2];
        timeline.push(`${((Date.now() - t0) / 1000).toFixed(0)} s: node B serving again, ${((Date.now() - killedAt) / 1000).toFixed(1)} s after the SIGKILL, on start attempt ${attempts.length + 1}`);
        for (const a of attempts) timeline.push(`  failed ${a}`);
      },
    };
    log(`chaos: ${MINUTES} min, ${LOOPS} client loops over 2 nodes, faults on a schedule…`);
    t0 = Date.now();
    const [records] = await Promise.all([runTraffic({ nodes: () => [...live], callers, loops: LOOPS, endAt: t0 + T }), runFaults(T, t0, faults, timeline, windows)]);
    const all = [...setup.warmRecords, ...records];
    log(`chaos: traffic done (${records.length} requests); faults off, waiting for the nodes to settle…`);
    await proxies.restoreAll();
    const settle = await setup.waitSettled(Number(process.env.BENCH_CHAOS_SETTLE_SEC ?? 150) * 1000);
    const stops = [];
    for (const n of nodes) stops.push(await n.stop());
    const spools = setup.spoolReport();
    const ledgerCheck = setup.ledgerCheck();
    const result = await audit(setup.pg, all, initial);
    const spooled = spools.filter((s) => s.bytes > 0);
    result.checks.push({ name: 'every spool is empty once the nodes have stopped (every spooled charge is in the database)', ok: spooled.length === 0, detail: spools.map((s) => `${s.node}: ${s.files} file(s), ${s.bytes} B`).join('; ') || 'no spool folder' });
    // A spool left behind is replayed by that node's next start: show whether that makes the money whole.
    let after = null;
    if (spooled.length) {
      const restarted = [];
      for (const s of spooled) {
        const [name, type] = s.node === 'chaos-a' ? ['A', 'master'] : ['B', 'slave'];
        log(`chaos: ${s.node} stopped with ${s.bytes} B in its spool; starting it again to replay it…`);
        const n = await startChaosNode(name, tmp, env(s.node, type, name === 'A' ? ports.a : ports.b));
        restarted.push(`${s.node} (${(await n.stop()).ms} ms to stop)`);
      }
      const again = await audit(setup.pg, all, initial);
      const left = setup.spoolReport().filter((s) => s.bytes > 0);
      again.checks.push({ name: 'every spool is empty', ok: left.length === 0, detail: left.map((s) => `${s.node}: ${s.bytes} B`).join('; ') || 'all empty' });
      after = { restarted, ledgerCheck: setup.ledgerCheck(), result: again };
    }
    const report = chaosReport({ minutes: MINUTES, loops: LOOPS, records, warm: setup.warmRecords.length, timeline, windows, t0, build: buildNote(), settle, spools, stops, ledgerCheck, result, after, nodesLogs: tmp });
    log(`\n${report}`);
    const out = path.join(root, 'bench/results', `chaos-${new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-')}.md`);
    fs.mkdirSync(path.dirname(out), { recursive: true });
    fs.writeFileSync(out, `${report}\n`);
    log(`report written to ${path.relative(root, out)}`);
    return { ok: ledgerCheck.code === 0 && result.checks.every((c) => c.ok) };
  } finally {
    for (const n of nodes) if (n.child.exitCode === null && n.child.signalCode === null) n.child.kill('SIGKILL');
    proxies?.close();
    killAll();
    await setup.close(process.env.BENCH_CHAOS_KEEP === '1');
    if (process.env.BENCH_CHAOS_KEEP !== '1') fs.rmSync(tmp, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--no-build')) build();
  runChaos()
    .then((r) => process.exit(r.ok ? 0 : 1))
    .catch((err) => {
      console.error(err);
      process.exit(2);
    });
}
