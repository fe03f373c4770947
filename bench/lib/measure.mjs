// The measurements of `npm run bench`. Every comparison alternates its targets inside one run
// (round-robin rounds for throughput, request-by-request for latency) so machine noise —
// other tenants, CPU frequency, GC — lands on all targets alike.
import autocannon from 'autocannon';
import { Pool } from 'undici';
import { cpuSeconds, log, pct, rssBytes } from './harness.mjs';

export const CHAT = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], max_tokens: 16 });
export const CHAT_STREAM = JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello there, how are you today?' }], stream: true });

function cannon(t, connections, duration) {
  return autocannon({
    url: `${t.url}/v1/chat/completions`,
    method: 'POST',
    body: CHAT,
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.key}` },
    connections,
    duration,
  });
}

/**
 * Non-stream throughput at 64 connections: `rounds` rounds, each running every target for
 * `seconds`, the order rotated per round. CPU is read from /proc for targets with a `pid`.
 */
export async function throughputRounds(targets, rounds, seconds) {
  for (const t of targets) await cannon(t, 64, 2); // warm-up: JIT, pools, SQLite pages
  const acc = new Map(targets.map((t) => [t.name, { rps: [], p50: [], p99: [], requests: 0, cpu: 0, errors: 0 }]));
  for (let r = 0; r < rounds; r++) {
    const order = targets.map((_, i) => targets[(i + r) % targets.length]);
    for (const t of order) {
      const cpu0 = t.pid ? cpuSeconds(t.pid) : 0;
      const res = await cannon(t, 64, seconds);
      const a = acc.get(t.name);
      if (t.pid) a.cpu += cpuSeconds(t.pid) - cpu0;
      a.requests += res.requests.total;
      a.errors += res.non2xx + res.errors + res.timeouts;
      a.rps.push(res.requests.average);
      a.p50.push(res.latency.p50);
      a.p99.push(res.latency.p99);
    }
  }
  const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
  const out = {};
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
    const s = samples[k].sort((a, b) => a - b);
    out[t.name] = { p50: pct(s, 50), p99: pct(s, 99) };
  });
  return out;
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
