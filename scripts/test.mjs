#!/usr/bin/env node
// `npm test`: everything that needs no optional service — build, unit and API tests (plus
// PostgreSQL/MySQL/Redis suites when TEST_PG_URL / TEST_MYSQL_URL / TEST_REDIS_URL are set), and
// the browser tests in Debian's Chromium, which it installs when missing and it may (root + apt).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const run = (cmd, args, env = {}) => {
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) process.exit(r.status ?? 1);
};
/** How long each step took, printed at the end (CI's summary shows where its minutes go). */
const timings = [];
const timed = (name, fn) => {
  const t = Date.now();
  const r = fn();
  timings.push([name, (Date.now() - t) / 1000]);
  return r;
};
/** A test suite: its failure is remembered, and the next suite still runs. */
const suite = (name, cmd, args, env = {}) => timed(name, () => spawnSync(cmd, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } }).status === 0);

/** The pids alive now. */
function processIds() {
  return new Set(fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d)).map(Number));
}

/** This process and its ancestors, which are never strays. */
function ancestors() {
  const out = new Set();
  for (let pid = process.pid; pid > 1 && !out.has(pid); ) {
    out.add(pid);
    try {
      pid = Number(fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]);
    } catch {
      break;
    }
  }
  return out;
}

/**
 * Processes started during a suite that outlived it and run this checkout's code (their command
 * line names it, or they run in a test's temp folder): printed with their CPU time and killed, so
 * the log shows the leak to fix without the browser tests paying for it.
 */
function stopStrays(before) {
  const mine = ancestors();
  const candidates = new Map();
  for (const pid of processIds()) {
    if (before.has(pid) || mine.has(pid)) continue;
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      const cwd = fs.readlinkSync(`/proc/${pid}/cwd`);
      if (!cmd.includes(root) && !cwd.startsWith(root) && !/modelgate-/.test(cwd)) continue;
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
      candidates.set(pid, { pid, cmd, ppid: Number(stat[1]), cpu: (Number(stat[11]) + Number(stat[12])) / 100 });
    } catch {
      // Gone meanwhile, or not ours to read.
    }
  }
  // Orphans (their test runner is gone, so init adopted them) and their children (a cluster's
  // workers); a server someone started by hand meanwhile has a live parent and is left alone.
  const strays = [...candidates.values()].filter((c) => c.ppid === 1);
  for (let grew = true; grew; ) {
    grew = false;
    for (const c of candidates.values()) {
      if (!strays.includes(c) && strays.some((s) => s.pid === c.ppid)) {
        strays.push(c);
        grew = true;
      }
    }
  }
  for (const s of strays) {
    console.error(`npm test: a test left process ${s.pid} running (${s.cpu.toFixed(1)} s of CPU): ${s.cmd.slice(0, 200)}`);
    try {
      process.kill(s.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}

const USAGE = `npm test [-- options] [vitest filters…]

Builds, then runs the suites in order (each runs even when an earlier one failed):
  vitest   unit and API tests of shared, testkit, web and server      ≈ 18 min on CI's 2 cores
           (PostgreSQL / MySQL / Redis suites when TEST_PG_URL / TEST_MYSQL_URL / TEST_REDIS_URL are set)
  e2e      the console in Debian's Chromium (Playwright)                ≈ 12 min
  agents   real Claude Code and Codex CLI sessions through ModelGate    ≈ 1 min

Options:
  --suite=<names>   only these suites, comma-separated (vitest,e2e,agents)
  --help            this text
Anything else is passed to vitest as filters (file paths or name parts, -t "<test name>"), and
then only vitest runs unless --suite says otherwise:
  npm test -- packages/server/src/ledger          the ledger's tests
  npm test -- --suite=e2e                         the browser tests alone

Quicker subsets: npm run test:fast (≈ 2 min: shared, testkit and server tests that boot no server),
npm run test:e2e, npm run test:agents.`;

const SUITES = ['vitest', 'e2e', 'agents'];
const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  console.log(USAGE);
  process.exit(0);
}
const suiteArg = args.find((a) => a.startsWith('--suite='));
const vitestArgs = args.filter((a) => a !== suiteArg);
const chosen = suiteArg ? suiteArg.slice('--suite='.length).split(',').map((s) => s.trim()).filter(Boolean) : vitestArgs.length ? ['vitest'] : SUITES;
const unknown = chosen.filter((s) => !SUITES.includes(s));
if (unknown.length || !chosen.length) {
  console.error(`npm test: unknown suite ${unknown.join(', ') || '(none)'}; expected some of ${SUITES.join(', ')}\n\n${USAGE}`);
  process.exit(2);
}
const wants = (name) => chosen.includes(name);

const hasE2e = wants('e2e') && fs.existsSync(path.join(root, 'e2e/playwright.config.ts'));
if (hasE2e && !fs.existsSync('/usr/bin/chromium')) {
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!isRoot) {
    console.error('Browser tests need Debian Chromium: sudo apt-get install -y chromium fonts-noto-cjk');
    process.exit(1);
  }
  console.log('Installing Debian chromium and fonts-noto-cjk for the browser tests…');
  run('apt-get', ['update', '-qq']);
  run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', 'chromium', 'fonts-noto-cjk'], { DEBIAN_FRONTEND: 'noninteractive' });
}

const out = path.join(root, '.tmp');
fs.mkdirSync(out, { recursive: true });
const vitestJson = path.join(out, 'vitest.json');
const e2eJson = path.join(out, 'e2e.json');
const agentsJson = path.join(out, 'agents.json');

for (const f of [vitestJson, e2eJson, agentsJson]) fs.rmSync(f, { force: true });
timed('build', () => run('npm', ['run', 'build']));
// Every suite runs even when an earlier one fails; the exit code and the closing line say so.
let ok = true;
const before = processIds();
if (wants('vitest')) ok = suite('vitest', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`, ...vitestArgs]);
// A server or fake a test failed to stop would share the CPUs with the browser tests (CI's e2e
// once took 2.4 × its usual time, with timeouts): name each one, then stop it.
if (hasE2e || wants('agents')) stopStrays(before);
if (hasE2e) {
  ok = suite('e2e', 'npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson }) && ok;
}
// The agents tier: real Claude Code and Codex CLI against ModelGate (scripts/test-agents.mjs prints its duration).
if (wants('agents')) ok = suite('agents', 'node', ['scripts/test-agents.mjs', '--json', agentsJson]) && ok;

// One closing line over every runner, in the plain form CI reads.
let passed = 0;
let failed = 0;
let skipped = 0;
for (const json of [wants('vitest') && vitestJson, wants('agents') && agentsJson].filter(Boolean)) {
  if (fs.existsSync(json)) {
    const v = JSON.parse(fs.readFileSync(json, 'utf8'));
    passed += v.numPassedTests;
    // A suite can fail outside any test (e.g. the ledger not reconciling when its server closes).
    failed += v.numFailedTests || (v.numFailedTestSuites ?? 0);
    skipped += v.numPendingTests + (v.numTodoTests ?? 0);
  } else failed += 1;
}
if (hasE2e && fs.existsSync(e2eJson)) {
  const e = JSON.parse(fs.readFileSync(e2eJson, 'utf8')).stats;
  passed += e.expected + e.flaky;
  failed += e.unexpected;
  skipped += e.skipped;
}
if (!ok && failed === 0) failed = 1;
for (const [name, sec] of timings) console.log(`${name.padEnd(8)} ${sec.toFixed(0).padStart(5)} s`);
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
if (!ok) process.exit(1);
