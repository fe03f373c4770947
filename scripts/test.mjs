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

const hasE2e = fs.existsSync(path.join(root, 'e2e/playwright.config.ts'));
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

run('npm', ['run', 'build']);
run('npx', ['vitest', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${vitestJson}`]);
if (hasE2e) {
  run('npx', ['playwright', 'test', '-c', 'e2e/playwright.config.ts', '--reporter=list,json'], { PLAYWRIGHT_JSON_OUTPUT_NAME: e2eJson });
}

// One closing line over both runners, in the plain form CI reads.
const v = JSON.parse(fs.readFileSync(vitestJson, 'utf8'));
let passed = v.numPassedTests;
let failed = v.numFailedTests;
let skipped = v.numPendingTests + (v.numTodoTests ?? 0);
if (hasE2e && fs.existsSync(e2eJson)) {
  const e = JSON.parse(fs.readFileSync(e2eJson, 'utf8')).stats;
  passed += e.expected + e.flaky;
  failed += e.unexpected;
  skipped += e.skipped;
}
console.log(`\n${passed} passed, ${failed} failed, ${skipped} skipped`);
