#!/usr/bin/env node
/**
 * `npm run bench`: ModelGate vs the floor (bare node:http + undici pass-through) vs direct, all
 * against the same fake OpenAI upstream on loopback, each server in its own process. Targets
 * alternate inside the run (see lib/measure.mjs) and one side-by-side table gives the ratios the
 * budgets are written in (docs/performance.md#budgets). Bounded to under three minutes (plus ~1 min with --logs).
 *
 *   BENCH_SECONDS=5 BENCH_ROUNDS=3 BENCH_MAX_ROUNDS=8   each throughput slice; rounds at least / at most
 *                (rounds go on until the throughput and CPU ratios spread under ±10 %)
 *   BENCH_PIN=0 / BENCH_PIN=1   never pin / pin on 2 CPUs too (lib/harness.mjs `pinning`; 4+ CPUs pin by default)
 *   BENCH_LATENCY_N=2000 BENCH_STREAM_N=300 BENCH_STREAMS=1000
 *   --logs       also run bench/log-queries.mjs (management API on 1 000 000 log rows)
 *   --workers    also a throughput row with WORKERS=BENCH_WORKERS (default 2) against the floor
 *   BENCH_RELAY_DBS=postgres,mysql   also throughput rows on those databases (TEST_PG_URL / TEST_MYSQL_URL)
 *   --soak       also run bench/soak.mjs (10 minutes of mixed traffic; RSS at minute 2 against the end)
 *   --chaos      also run bench/chaos.mjs (10 minutes, two nodes on PostgreSQL + Redis behind fault proxies,
 *                a fault schedule, then the money audit and ledger:check; report in bench/results/chaos-<date>.md)
 *   (the sensitive-word row alone: node bench/sensitive-words.mjs)
 *   --no-build   reuse packages/*\/dist
 */
import fs from 'node:fs';
import { build, f, forkReady, freshDatabase, killAll, log, pin, pinningNote, priceModels, rootSession, rssBytes, startModelGate } from './lib/harness.mjs';
import { addedOver, CHAT, CHAT_STREAM, concurrentStreams, cpuPerChunk, interleavedLatency, throughputRounds } from './lib/measure.mjs';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const MAX_ROUNDS = Math.max(ROUNDS, Number(process.env.BENCH_MAX_ROUNDS ?? 8));
const LAT_N = Number(process.env.BENCH_LATENCY_N ?? 2000);
const STREAM_N = Number(process.env.BENCH_STREAM_N ?? 300);
const STREAMS = Number(process.env.BENCH_STREAMS ?? 1000);
const CONVERT_N = Number(process.env.BENCH_CONVERT_N ?? 200);
/** Chunks per stream of the conversion row, so per-chunk work dominates per-request work. */
const LONG = 100;
const CLAUDE = 'claude-3-5-haiku-20241022';
const ask = [{ role: 'user', content: 'Hello there, how are you today?' }];
const CLAUDE_STREAM = JSON.stringify({ model: CLAUDE, messages: ask, stream: true });
const LONG_STREAM = JSON.stringify({ model: 'long-stream', messages: ask, stream: true });
const MESSAGES_STREAM = JSON.stringify({ model: CLAUDE, max_tokens: 1024, messages: ask, stream: true });
const MB = 1024 * 1024;

/**
 * A throughput row of its own (rounds against the floor) for ModelGate started with `env`:
 * `--workers` runs it as a cluster of BENCH_WORKERS (default 2) workers — on a 2-CPU machine the
 * load generator, the fake upstream and the floor share the two CPUs with the workers, so that row
 * shows that the cluster serves and what it costs per request, not how it scales
 * (docs/performance.md); BENCH_RELAY_DBS=postgres,mysql runs it on a fresh database of each kind
 * (TEST_PG_URL / TEST_MYSQL_URL), the ledger's group commit included.
 */
async function ownRounds(label, upstream, floorTarget, env) {
  log(`non-stream throughput, ${label}: ${ROUNDS}–${MAX_ROUNDS} interleaved rounds against the floor…`);
  const mg = await startModelGate(upstream, env);
  const subject = { name: 'subject', url: mg.url, key: mg.key, pid: mg.child.pid };
  const tp = await throughputRounds([floorTarget, subject], { minRounds: ROUNDS, maxRounds: MAX_ROUNDS, seconds: SECONDS, subject: 'subject' });
  mg.child.kill('SIGTERM');
  await new Promise((resolve) => mg.child.once('exit', resolve));
  fs.rmSync(mg.dir, { recursive: true, force: true });
  return { label, tp };
}

async function extraRounds(upstream, floorTarget) {
  const out = [];
  if (process.argv.includes('--workers')) {
    const n = Number(process.env.BENCH_WORKERS ?? 2);
    out.push(await ownRounds(`WORKERS=${n}`, upstream, floorTarget, { WORKERS: String(n) }));
  }
  for (const kind of (process.env.BENCH_RELAY_DBS ?? '').split(',').filter(Boolean)) {
    const db = await freshDatabase(kind);
    out.push(await ownRounds(kind, upstream, floorTarget, db.env));
    await db.drop();
  }
  return out;
}

function table(rows) {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((r) => String(r[i]).length)));
  return rows.map((r) => r.map((c, i) => (i === 0 ? String(c).padEnd(widths[i]) : String(c).padStart(widths[i]))).join('  ')).join('\n');
}

async function main() {
  const t0 = Date.now();
  if (!process.argv.includes('--no-build')) build();
  pin(process.pid, 'load');
  log(pinningNote());
  const fake = await forkReady('fake-upstream.mjs');
  // Slow streams (40 frames, 25 ms apart ≈ 1 s each) for the 1 000-concurrent-streams memory test.
  const slowFake = await forkReady('fake-upstream.mjs', [JSON.stringify({ chunkCount: 40, chunkDelayMs: 25 })]);
  const floor = await forkReady('floor-proxy.mjs', [fake.url], 'targets');
  const slowFloor = await forkReady('floor-proxy.mjs', [slowFake.url], 'targets');
  const mg = await startModelGate(fake.url);
  const headers = await rootSession(mg.url);
  await fetch(`${mg.url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify({ type: 1, name: 'slow', key: 'sk-fake', base_url: slowFake.url, models: 'slow-stream', group: 'default' }) });
  // The conversion row: an OpenAI chat caller on an Anthropic channel, against a bare proxy of the
  // same Anthropic stream (first byte) and ModelGate's own passthrough of as many chunks (CPU).
  const longFake = await forkReady('fake-upstream.mjs', [JSON.stringify({ chunkCount: LONG })]);
  const anth = await forkReady('fake-anthropic.mjs', [JSON.stringify({ chunkCount: LONG })]);
  const anthFloor = await forkReady('floor-proxy.mjs', [anth.url, JSON.stringify({ 'x-api-key': 'sk-ant', 'anthropic-version': '2023-06-01' })], 'targets');
  await fetch(`${mg.url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify({ type: 1, name: 'long', key: 'sk-fake', base_url: longFake.url, models: 'long-stream', group: 'default' }) });
  await fetch(`${mg.url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify({ type: 14, name: 'claude', key: 'sk-ant', base_url: anth.url, models: CLAUDE, group: 'default' }) });
  await priceModels(mg.url, headers, ['slow-stream', 'long-stream']);
  log(`fake ${fake.url}  floor ${floor.url}  modelgate ${mg.url}`);

  const direct = { name: 'direct', url: fake.url, key: 'direct' };
  const fl = { name: 'floor', url: floor.url, key: 'floor', pid: floor.child.pid };
  const gate = { name: 'modelgate', url: mg.url, key: mg.key, pid: mg.child.pid };
  const all = [direct, fl, gate];

  // The memory test runs first, on a warmed-up process: it measures what 1 000 open streams cost,
  // not the heap a 64-connection soak leaves behind (reported separately as "RSS after the run").
  log(`${STREAMS} concurrent streams (≈1 s each), RSS sampled…`);
  await concurrentStreams(gate, 'slow-stream', 100);
  const rssFloor = await concurrentStreams({ url: slowFloor.url, key: 'floor', pid: slowFloor.child.pid }, 'slow-stream', STREAMS);
  const rssGate = await concurrentStreams(gate, 'slow-stream', STREAMS);

  log(`non-stream throughput at 64 connections: ${ROUNDS}–${MAX_ROUNDS} interleaved rounds × ${SECONDS} s per target, until the ratios spread under ±10 %…`);
  const tp = await throughputRounds(all, { minRounds: ROUNDS, maxRounds: MAX_ROUNDS, seconds: SECONDS });
  log(`latency at 1 connection: ${LAT_N} requests per target, interleaved…`);
  const lat = await interleavedLatency(all, CHAT, LAT_N, false);
  log(`stream time to first byte: ${STREAM_N} streams per target, interleaved…`);
  const ttfb = await interleavedLatency(all, CHAT_STREAM, STREAM_N, true);
  log(`converted stream (OpenAI caller, Anthropic channel): ${STREAM_N} first bytes per target, ${CONVERT_N} × ${LONG}-chunk streams for CPU…`);
  const convTtfb = await interleavedLatency([{ name: 'floor', url: anthFloor.url, key: 'floor', path: '/v1/messages', body: MESSAGES_STREAM }, { ...gate }], CLAUDE_STREAM, STREAM_N, true);
  const cpu = { pass: [], conv: [] };
  for (let r = 0; r < 2; r++) {
    cpu.pass.push(await cpuPerChunk(gate, LONG_STREAM, CONVERT_N / 2, 8));
    cpu.conv.push(await cpuPerChunk(gate, CLAUDE_STREAM, CONVERT_N / 2, 8));
  }
  const perChunk = (xs) => xs.reduce((a, x) => a + x.usPerChunk * x.chunks, 0) / xs.reduce((a, x) => a + x.chunks, 0);
  const rssAfter = rssBytes(gate.pid);
  const extra = await extraRounds(fake.url, fl);

  const ms = (x) => f(x, 3);
  const pm = (x) => `±${f(x * 100, 0)} %`;
  const verdict = (okay) => (okay ? 'met' : 'MISSED');
  const ratioTp = tp.rpsRatio.median;
  const ratioCpu = tp.cpuRatio.median;
  const p50 = addedOver(lat, 'modelgate', 'floor', 'p50');
  const p99 = addedOver(lat, 'modelgate', 'floor', 'p99');
  const floorAdded = (k) => lat.floor[k] - lat.direct[k];
  const ttfbDelta = addedOver(ttfb, 'modelgate', 'floor', 'p50');
  const convDelta = addedOver(convTtfb, 'modelgate', 'floor', 'p50');
  const rows = [
    ['', 'direct', 'floor', 'modelgate', 'modelgate vs budget', 'spread', ''],
    ['req/s @64 (median of rounds)', f(tp.direct.rps, 0), f(tp.floor.rps, 0), f(tp.modelgate.rps, 0), `${f(ratioTp)} × floor (≥ 0.60)`, pm(tp.rpsRatio.spread), verdict(ratioTp >= 0.6)],
    ['latency p50 / p99 ms @64', `${f(tp.direct.p50, 0)} / ${f(tp.direct.p99, 0)}`, `${f(tp.floor.p50, 0)} / ${f(tp.floor.p99, 0)}`, `${f(tp.modelgate.p50, 0)} / ${f(tp.modelgate.p99, 0)}`, '', '', ''],
    ['errors (non-2xx, timeouts)', tp.direct.errors, tp.floor.errors, tp.modelgate.errors, '', '', ''],
    ['CPU µs per request @64', '-', f(tp.floor.cpuUsPerReq, 0), f(tp.modelgate.cpuUsPerReq, 0), `${f(ratioCpu)} × floor (≤ 1.60)`, pm(tp.cpuRatio.spread), verdict(ratioCpu <= 1.6)],
    ['latency p50 ms @1', ms(lat.direct.p50), ms(lat.floor.p50), ms(lat.modelgate.p50), `+${ms(p50.added)} over floor (≤ 0.2)`, `±${ms(p50.spreadMs)} ms`, verdict(p50.added <= 0.2)],
    ['latency p99 ms @1', ms(lat.direct.p99), ms(lat.floor.p99), ms(lat.modelgate.p99), `+${ms(p99.added)} over floor (≤ 1.0)`, `±${ms(p99.spreadMs)} ms`, verdict(p99.added <= 1)],
    ['  floor adds over direct p50 / p99 ms', '', `${ms(floorAdded('p50'))} / ${ms(floorAdded('p99'))}`, '', '', '', ''],
    ['stream first byte p50 ms', ms(ttfb.direct.p50), ms(ttfb.floor.p50), ms(ttfb.modelgate.p50), `+${ms(ttfbDelta.added)} over floor (≤ 1.0)`, `±${ms(ttfbDelta.spreadMs)} ms`, verdict(ttfbDelta.added <= 1)],
    ['stream first byte p99 ms', ms(ttfb.direct.p99), ms(ttfb.floor.p99), ms(ttfb.modelgate.p99), '', '', ''],
    ['converted stream first byte p50 ms', '-', ms(convTtfb.floor.p50), ms(convTtfb.modelgate.p50), `+${ms(convDelta.added)} over floor (≤ 1.0)`, `±${ms(convDelta.spreadMs)} ms`, verdict(convDelta.added <= 1)],
    ['  converted first byte p99 ms', '-', ms(convTtfb.floor.p99), ms(convTtfb.modelgate.p99), '', '', ''],
    ['CPU µs per chunk: passthrough / converted', '-', f(perChunk(cpu.pass), 1), f(perChunk(cpu.conv), 1), `${f(perChunk(cpu.conv) / perChunk(cpu.pass))} × passthrough (≤ 2.00)`, '', verdict(perChunk(cpu.conv) <= 2 * perChunk(cpu.pass))],
    [`peak RSS MB, ${STREAMS} streams`, '-', f(rssFloor.peak / MB, 0), f(rssGate.peak / MB, 0), `${f(rssGate.peak / MB, 0)} MB (≤ 200)`, '', verdict(rssGate.peak <= 200 * MB && rssGate.ok === STREAMS)],
    ['  RSS before / streams completed', '-', `${f(rssFloor.before / MB, 0)} / ${rssFloor.ok}`, `${f(rssGate.before / MB, 0)} / ${rssGate.ok}`, '', '', ''],
    ['  RSS MB after the whole run', '-', '-', f(rssAfter / MB, 0), '', '', ''],
  ];
  for (const { label, tp: t } of extra) {
    rows.push(
      [`req/s @64, ${label} (own rounds)`, '', f(t.floor.rps, 0), f(t.subject.rps, 0), `${f(t.rpsRatio.median)} × floor`, pm(t.rpsRatio.spread), ''],
      [`CPU µs per request @64, ${label}`, '', f(t.floor.cpuUsPerReq, 0), f(t.subject.cpuUsPerReq, 0), `${f(t.cpuRatio.median)} × floor`, pm(t.cpuRatio.spread), ''],
    );
  }
  log(`\nthroughput rounds: ${tp.rounds} (${tp.steady ? 'ratios steady under ±10 %' : `COULD NOT SETTLE under ±10 % in ${MAX_ROUNDS} rounds: treat these ratios with care`}); ${pinningNote()}`);
  log(`\n${table(rows)}`);
  const { runSensitiveWords } = await import('./sensitive-words.mjs');
  await runSensitiveWords();
  log(`\nbench done in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  killAll();
  fs.rmSync(mg.dir, { recursive: true, force: true });
  if (process.argv.includes('--logs')) {
    const { runLogQueries } = await import('./log-queries.mjs');
    await runLogQueries();
  }
  if (process.argv.includes('--soak')) {
    const { runSoak } = await import('./soak.mjs');
    await runSoak();
  }
  if (process.argv.includes('--chaos')) {
    const { runChaos } = await import('./chaos.mjs');
    const chaos = await runChaos();
    if (!chaos.ok) process.exit(1);
  }
  process.exit(0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
