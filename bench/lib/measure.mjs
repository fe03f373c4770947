// The measurements of `npm run bench`. Every comparison alternates its targets inside one run
// (round-robin rounds for throughput, request-by-request for latency) so machine noise —
// other tenants, CPU frequency, GC — lands on all targets alike.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { cpuSeconds, log, pct, rssBytes } from './harness.mjs';

export const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], max_tokens: 16 });
export const CHAT_STREAM = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], stream: true });

export function cannon(t, connections, duration) {
  return autocannon({
    url: `${t.url}/v1/chat/completions`,
    method: 'POST',
    body: CHAT,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
    connections,
    duration,
  });
}

/** Median, and the spread as half the range over the median (a ratio's "±x %"). */
export function steadiness(xs) {
  const sorted = [...xs].sort((x, y) => x - y);
  const median = sorted[Math.floor(sorted.length / 2)];
  return { median, spread: sorted.length > 1 && median ? (sorted[sorted.length - 1] - sorted[0]) / 2 / Math.abs(median) : 0, n: sorted.length };
}

/**
 * Non-stream throughput at 64 connections, in rounds: each round runs every target for `seconds`,
 * the order rotated per round; CPU is read from /proc for targets with a `pid`. After `minRounds`,
 * rounds go on (up to `maxRounds`) until the per-round ratios of `subject` to `reference` —
 * throughput and CPU per request — both spread less than `spread` (±10 % by default), so a verdict
 * rests on a steady ratio; `steady: false` says the machine would not settle.
 */
export async function throughputRounds(targets, { minRounds, maxRounds, seconds, subject = 'modelgate', reference = 'floor', spread = 0.1 }) {
  for (const t of targets) await cannon(t, 64, 2); // warm-up: JIT, pools, SQLite pages
  const acc = new Map(targets.map((t) => [t.name, { rps: [], p50: [], p99: [], cpuPerReq: [], requests: 0, cpu: 0, errors: 0 }]));
  const ratios = { rps: [], cpu: [] };
  let r = 0;
  for (; r < maxRounds; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const cpu0 = t.pid ? cpuSeconds(t.pid) : 0;
      const res = await cannon(t, 64, seconds);
      const a = acc.get(t.name);
      const cpu = t.pid ? cpuSeconds(t.pid) - cpu0 : 0;
      a.cpu += cpu;
      a.requests += res.requests.total;
      a.errors += res.non2xx + res.errors + res.timeouts;
      a.rps.push(res.requests.average);
      a.p50.push(res.latency.p50);
      a.p99.push(res.latency.p99);
      a.cpuPerReq.push(cpu && res.requests.total ? (cpu * 1e6) / res.requests.total : NaN);
    }
    const s = acc.get(subject);
    const ref = acc.get(reference);
    ratios.rps.push(s.rps[r] / ref.rps[r]);
    ratios.cpu.push(s.cpuPerReq[r] / ref.cpuPerReq[r]);
    if (r + 1 >= minRounds && steadiness(ratios.rps).spread < spread && steadiness(ratios.cpu).spread < spread) {
      r += 1;
      break;
    }
  }
  const median = (xs) => steadiness(xs).median;
  const out = { rounds: r, rpsRatio: steadiness(ratios.rps), cpuRatio: steadiness(ratios.cpu) };
  out.steady = out.rpsRatio.spread < spread && out.cpuRatio.spread < spread;
  for (const [name, a] of acc) {
    out[name] = { rps: median(a.rps), p50: median(a.p50), p99: median(a.p99), errors: a.errors, cpuUsPerReq: a.cpu ? (a.cpu * 1e6) / a.requests : NaN };
  }
  return out;
}

/**
 * One connection per target, requests interleaved target by target. `firstByte`: time to the
 * first body chunk (stream TTFB) instead of to the end of the reply.
 */
export async function interleavedLatency(targets, body, n, firstByte) {
  const pools = targets.map((t) => new Pool(t.url, { connections: 1 }));
  const samples = targets.map(() => []);
  for (let i = 0; i < n + 50; i++) {
    for (let k = 0; k < targets.length; k++) {
      const t0 = process.hrtime.bigint();
      // A target may speak another API than chat completions (the Anthropic floor: /v1/messages).
      const t = targets[k];
      const res = await pools[k].request({ path: t.path ?? '/v1/chat/completions', method: 'POST', body: t.body ?? body, headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` } });
      let t1 = 0n;
      for await (const _chunk of res.body) if (!t1) t1 = process.hrtime.bigint();
      const t2 = process.hrtime.bigint();
      if (res.statusCode !== 200) throw new Error(`status ${res.statusCode} from ${targets[k].name}`);
      if (i >= 50) samples[k].push(Number((firstByte ? t1 : t2) - t0) / 1e6);
    }
  }
  await Promise.all(pools.map((p) => p.close()));
  const out = {};
  targets.forEach((t, k) => {
    // Five consecutive blocks of the run, for the spread of a difference between targets.
    const size = Math.ceil(samples[k].length / BLOCKS);
    const blocks = Array.from({ length: BLOCKS }, (_, b) => samples[k].slice(b * size, (b + 1) * size).sort((x, y) => x - y));
    const s = [...samples[k]].sort((a, b) => a - b);
    out[t.name] = { p50: pct(s, 50), p99: pct(s, 99), blocks: blocks.map((bl) => ({ p50: pct(bl, 50), p99: pct(bl, 99) })) };
  });
  return out;
}

const BLOCKS = 5;

/**
 * What `subject` adds over `reference` at a percentile (ms), with its spread across the run's
 * blocks: ± half the range of the per-block differences.
 */
export function addedOver(lat, subject, reference, key) {
  const per = lat[subject].blocks.map((b, i) => b[key] - lat[reference].blocks[i][key]);
  return { added: lat[subject][key] - lat[reference][key], spreadMs: (Math.max(...per) - Math.min(...per)) / 2 };
}

/**
 * `count` concurrent slow streams through `target`; the proxy's RSS is sampled every 25 ms.
 * Returns the peak, the RSS before, and how many streams completed.
 */
export async function concurrentStreams(target, model, count) {
  const pool = new Pool(target.url, { connections: count, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const before = rssBytes(target.pid);
  let peak = before;
  const timer = setInterval(() => {
    peak = Math.max(peak, rssBytes(target.pid));
  }, 25);
  const body = JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello there, how are you today?' }], stream: true });
  let open = 0;
  let maxOpen = 0;
  const one = async () => {
    const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` } });
    open += 1;
    maxOpen = Math.max(maxOpen, open);
    let text = '';
    for await (const chunk of res.body) text += chunk;
    open -= 1;
    if (res.statusCode !== 200 || !text.includes('[DONE]')) throw new Error(`status ${res.statusCode}: ${text.slice(-200)}`);
    return true;
  };
  const t0 = Date.now();
  const results = await Promise.allSettled(Array.from({ length: count }, one));
  clearInterval(timer);
  peak = Math.max(peak, rssBytes(target.pid));
  await pool.close();
  const failed = results.filter((r) => r.status === 'rejected');
  if (failed.length) log(`  ${failed.length} of ${count} streams failed, e.g. ${failed[0].reason?.message ?? failed[0].reason}`);
  return { peak, before, ok: count - failed.length, maxOpen, ms: Date.now() - t0 };
}

/**
 * CPU per forwarded stream chunk of a proxy: `n` streams of `body`, `concurrency` at a time; the
 * proxy's CPU seconds over the frames its clients received (`data:` lines).
 */
export async function cpuPerChunk(target, body, n, concurrency) {
  const pool = new Pool(target.url, { connections: concurrency });
  let chunks = 0;
  let next = 0;
  const cpu0 = cpuSeconds(target.pid);
  const worker = async () => {
    while (next < n) {
      next += 1;
      const res = await pool.request({ path: '/v1/chat/completions', method: 'POST', body, headers: { 'content-type': 'application/json', authorization: `Bearer ${target.key}` } });
      const text = await res.body.text();
      if (res.statusCode !== 200 || !text.includes('[DONE]')) throw new Error(`status ${res.statusCode}: ${text.slice(-200)}`);
      chunks += text.split('\ndata: ').length;
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const cpu = cpuSeconds(target.pid) - cpu0;
  await pool.close();
  return { usPerChunk: (cpu * 1e6) / chunks, chunks };
}
