#!/usr/bin/env node
/**
 * A CPU profile of ModelGate under the bench's non-stream load (docs/performance.md): the built
 * server runs with `--cpu-prof`, takes CONNECTIONS connections of chat completions for SECONDS
 * seconds after a short warm-up, and at exit its profile is summarised over those seconds — self
 * time by package or server folder, then by function — as shares of the busy (non-idle) time. The .cpuprofile files
 * stay in the printed directory for Chrome DevTools.
 *
 *   node bench/profile.mjs [--no-build]      BENCH_PROFILE_SECONDS=10 BENCH_PROFILE_CONNECTIONS=64
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build, forkReady, killAll, log, startModelGate } from './lib/harness.mjs';
import { cannon } from './lib/measure.mjs';

const SECONDS = Number(process.env.BENCH_PROFILE_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_PROFILE_CONNECTIONS ?? 64);

/** Where a frame's code lives: an npm package, a server folder, a node: module, or native. */
function place(url) {
  if (!url) return '(native)';
  const pkg = url.match(/node_modules\/((@[^/]+\/)?[^/]+)/);
  if (pkg) return pkg[1];
  if (url.includes('packages/server/dist/')) return `server:${url.split('packages/server/dist/')[1].split('/').slice(0, 2).join('/')}`;
  return url.startsWith('node:') ? url : path.basename(url);
}

/** Microseconds on the monotonic clock, the one V8's profiler stamps samples with on Linux. */
const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * Self time by place and by function over the samples taken in `window` (the timed load, so the
 * server's start-up, the root login and the warm-up are left out); over the whole profile if no
 * sample falls in it (a profiler clock other than the monotonic one).
 */
function summarise(file, window) {
  const p = JSON.parse(fs.readFileSync(file, 'utf8'));
  const nodes = new Map(p.nodes.map((n) => [n.id, n]));
  const at = [];
  let t = p.startTime;
  for (const dt of p.timeDeltas) at.push((t += dt));
  let inWindow = (i) => at[i] >= window.from && at[i] <= window.to;
  if (!p.samples.some((_, i) => inWindow(i))) {
    log('(no sample in the timed window: the whole profile is summarised, start-up included)');
    inWindow = () => true;
  }
  const byPlace = new Map();
  const byFunction = new Map();
  let idle = 0;
  let total = 0;
  p.samples.forEach((id, i) => {
    if (!inWindow(i)) return;
    const dt = p.timeDeltas[i] ?? 0;
    const cf = nodes.get(id).callFrame;
    total += dt;
    if (cf.functionName === '(idle)') idle += dt;
    const where = cf.functionName === '(garbage collector)' ? 'GC' : cf.functionName.startsWith('(') ? cf.functionName : place(cf.url);
    byPlace.set(where, (byPlace.get(where) ?? 0) + dt);
    const fn = `${cf.functionName || '(anonymous)'}  ${place(cf.url)}:${cf.lineNumber + 1}`;
    byFunction.set(fn, (byFunction.get(fn) ?? 0) + dt);
  });
  const busy = total - idle;
  const top = (m, n) => [...m].filter(([k]) => k !== '(idle)').sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, t]) => `${((100 * t) / busy).toFixed(1).padStart(6)} %  ${k}`);
  log(`\n${path.basename(file)}, the timed load only: ${(busy / 1e6).toFixed(1)} s busy of ${(total / 1e6).toFixed(1)} s`);
  log(['by place:', ...top(byPlace, 20), '', 'by function:', ...top(byFunction, 30)].join('\n'));
}

if (!process.argv.includes('--no-build')) build();
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'modelgate-profile-'));
process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${dir}`;
const fake = await forkReady('fake-upstream.mjs');
const mg = await startModelGate(fake.url);
const load = (duration) => cannon({ url: mg.url, key: mg.key }, CONNECTIONS, duration);
await load(3);
const window = { from: nowUs() };
const r = await load(SECONDS);
window.to = nowUs();
log(`${CONNECTIONS} connections, ${SECONDS} s: ${Math.round(r.requests.average)} req/s, p50 ${r.latency.p50} ms, ${r.non2xx + r.errors} errors`);
mg.child.kill('SIGTERM');
await new Promise((resolve) => mg.child.once('exit', resolve));
killAll();
// The main thread's profile is the largest (the WAL checkpointer's worker writes its own).
const files = fs.readdirSync(dir).filter((f) => f.endsWith('.cpuprofile')).map((f) => path.join(dir, f));
files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size);
if (!files.length) throw new Error(`no profile was written in ${dir}`);
summarise(files[0], window);
log(`\nprofiles: ${dir}`);
fs.rmSync(mg.dir, { recursive: true, force: true });
process.exit(0);
