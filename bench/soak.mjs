#!/usr/bin/env node
/**
 * `npm run bench -- --soak`: memory under a long run of mixed traffic (hot-path issue, budget: RSS
 * at the end within 10 % of RSS at minute 2). One ModelGate process on SQLite, its fakes in their
 * own processes, WORKERS clients in a loop, each request drawn from the mix below by weight: plain
 * and streamed chat, an OpenAI caller on an Anthropic channel (converted stream), the Anthropic
 * Messages ingress on an OpenAI channel, embeddings, refusals (a bad key, an unknown model) and the
 * console's log list. RSS is sampled every second; the two figures compared are the medians of the
 * 20 s around minute 2 and of the run's last 20 s, so one GC does not decide the verdict.
 *
 *   node bench/soak.mjs [--no-build]             this run alone (≈ BENCH_SOAK_MINUTES + ½ min)
 *   BENCH_SOAK_MINUTES=10 BENCH_SOAK_WORKERS=16
 */
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { build, f, forkReady, killAll, log, priceModels, rootSession, rssBytes, startModelGate } from './lib/harness.mjs';

const MINUTES = Number(process.env.BENCH_SOAK_MINUTES ?? 10);
const WORKERS = Number(process.env.BENCH_SOAK_WORKERS ?? 16);
const MB = 1024 * 1024;
const CLAUDE = 'claude-3-5-haiku-20241022';
const ask = [{ role: 'user', content: 'Hello there, how are you today?' }];

/** The mix: [name, weight, request(key) → { path, body, method?, headers? }, expected status]. */
function mix(key, consoleHeaders) {
  const json = (body) => JSON.stringify(body);
  const bearer = { authorization: `Bearer ${key}` };
  return [
    ['chat', 30, { path: '/v1/chat/completions', body: json({ model: 'gpt-4o-mini', messages: ask, max_tokens: 16 }), headers: bearer }, 200],
    ['chat stream', 25, { path: '/v1/chat/completions', body: json({ model: 'gpt-4o-mini', messages: ask, stream: true }), headers: bearer }, 200],
    ['converted stream', 15, { path: '/v1/chat/completions', body: json({ model: CLAUDE, messages: ask, stream: true }), headers: bearer }, 200],
    ['messages ingress', 10, { path: '/v1/messages', body: json({ model: 'gpt-4o-mini', max_tokens: 64, messages: ask }), headers: { 'x-api-key': key, 'anthropic-version': '2023-06-01' } }, 200],
    ['embeddings', 10, { path: '/v1/embeddings', body: json({ model: 'text-embedding-3-small', input: ['one', 'two'] }), headers: bearer }, 200],
    ['bad key', 4, { path: '/v1/chat/completions', body: json({ model: 'gpt-4o-mini', messages: ask }), headers: { authorization: 'Bearer sk-wrong' } }, 401],
    ['unknown model', 4, { path: '/v1/chat/completions', body: json({ model: 'no-such-model', messages: ask }), headers: bearer }, 503],
    ['console log list', 2, { method: 'GET', path: '/api/log/?p=1&page_size=20', headers: consoleHeaders }, 200],
  ];
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}

export async function runSoak() {
  const fake = await forkReady('fake-upstream.mjs');
  const anth = await forkReady('fake-anthropic.mjs');
  const mg = await startModelGate(fake.url);
  const headers = await rootSession(mg.url);
  for (const ch of [
    { type: 1, name: 'embeddings', key: 'sk-fake', base_url: fake.url, models: 'text-embedding-3-small', group: 'default' },
    { type: 14, name: 'claude', key: 'sk-ant', base_url: anth.url, models: CLAUDE, group: 'default' },
  ]) {
    const r = await (await fetch(`${mg.url}/api/channel/`, { method: 'POST', headers, body: JSON.stringify(ch) })).json();
    if (!r.success) throw new Error(`channel ${ch.name}: ${r.message}`);
  }
  await priceModels(mg.url, headers, ['text-embedding-3-small']);
  const kinds = mix(mg.key, headers);
  const total = kinds.reduce((a, k) => a + k[1], 0);
  const counts = new Map(kinds.map((k) => [k[0], { ok: 0, wrong: 0, example: '' }]));
  const pool = new Pool(mg.url, { connections: WORKERS });
  const pid = mg.child.pid;
  const samples = [];
  const t0 = Date.now();
  const end = t0 + MINUTES * 60_000;
  log(`soak: ${MINUTES} min of mixed traffic, ${WORKERS} clients, RSS sampled every second…`);
  const sampler = setInterval(() => {
    samples.push({ t: (Date.now() - t0) / 1000, rss: rssBytes(pid) });
    const last = samples[samples.length - 1];
    if (Math.round(last.t) % 60 === 0) log(`  minute ${f(last.t / 60, 0)}: RSS ${f(last.rss / MB, 0)} MB`);
  }, 1000);
  const pick = () => {
    let x = Math.random() * total;
    for (const k of kinds) if ((x -= k[1]) < 0) return k;
    return kinds[0];
  };
  const worker = async () => {
    while (Date.now() < end) {
      const [name, , req, expected] = pick();
      const res = await pool.request({ method: req.method ?? 'POST', path: req.path, body: req.body, headers: { 'content-type': 'application/json', ...req.headers } });
      const text = await res.body.text();
      const c = counts.get(name);
      if (res.statusCode === expected) c.ok += 1;
      else {
        c.wrong += 1;
        c.example ||= `${res.statusCode} ${text.slice(0, 160)}`;
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  clearInterval(sampler);
  await pool.close();

  const around = (sec) => median(samples.filter((s) => Math.abs(s.t - sec) <= 10).map((s) => s.rss));
  const first = around(Math.min(120, (MINUTES * 60) / 5));
  const last = median(samples.filter((s) => s.t >= MINUTES * 60 - 20).map((s) => s.rss));
  const growth = (last - first) / first;
  const requests = [...counts.values()].reduce((a, c) => a + c.ok + c.wrong, 0);
  const wrong = [...counts.entries()].filter(([, c]) => c.wrong);
  const rows = [
    ['soak, mixed traffic', `${MINUTES} min, ${requests} requests (${f(requests / MINUTES / 60, 0)}/s), ${WORKERS} clients`],
    ...[...counts.entries()].map(([name, c]) => [`  ${name}`, `${c.ok} as expected${c.wrong ? `, ${c.wrong} not (e.g. ${c.example})` : ''}`]),
    ['  RSS MB at minute 2 / at the end', `${f(first / MB, 0)} / ${f(last / MB, 0)}  (${growth >= 0 ? '+' : ''}${f(growth * 100, 1)} %, budget within ±10 %)  ${Math.abs(growth) <= 0.1 && !wrong.length ? 'met' : 'MISSED'}`],
    ['  RSS MB min / max over the run', `${f(Math.min(...samples.map((s) => s.rss)) / MB, 0)} / ${f(Math.max(...samples.map((s) => s.rss)) / MB, 0)}`],
  ];
  log(`\n${rows.map((r) => `${r[0].padEnd(36)}${r[1]}`).join('\n')}`);
  killAll();
  fs.rmSync(mg.dir, { recursive: true, force: true });
  return { first, last, growth, requests, wrong: wrong.length };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--no-build')) build();
  runSoak()
    .then(() => process.exit(0))
    .catch((err) => {
      console.error(err);
      process.exit(1);
    });
}
