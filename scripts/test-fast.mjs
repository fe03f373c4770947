#!/usr/bin/env node
// `npm run test:fast`: every test file of shared, testkit and server that boots no ModelGate
// server — converters on provider fixtures, fixture types, pricing, ledger, formats, fakes. The
// `*.api.test.ts` files (the ones that boot one) are left out, and
// MODELGATE_TEST_TIER=fast makes startTestServer/startNode throw, so a misnamed file fails loudly
// instead of slowing the tier down. No build, no database service: it runs from source.
//
// What makes it fast (measured on the 2-core machine, see README "Tests"):
// - the fuzz tests run FUZZ_CONVERTER_RUNS / FUZZ_SCHEMA_RUNS cases in this tier instead of
//   10 000 each (`npm test` keeps the full counts); set either variable to override;
// - more workers than vitest.config.ts gives the full run (1 on 2 cores, bounded there by the
//   database connections the API tests open): these files are mostly import and transform time,
//   which overlaps well. TEST_FAST_WORKERS overrides.
// The console's tests are not in this tier: each renders the whole app in jsdom, about seven
// minutes of CPU in all; `npm test` runs them, `npx vitest run --project web` alone.
// Extra arguments go to vitest (e.g. a path filter: `npm run test:fast -- relay/adapters`).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const out = path.join(root, '.tmp');
fs.mkdirSync(out, { recursive: true });
const json = path.join(out, 'vitest-fast.json');
fs.rmSync(json, { force: true });

const workers = process.env.TEST_FAST_WORKERS ?? String(Math.max(2, Math.min(4, availableParallelism() + 1)));
const env = {
  ...process.env,
  MODELGATE_TEST_TIER: 'fast',
  FUZZ_CONVERTER_RUNS: process.env.FUZZ_CONVERTER_RUNS ?? '500',
  FUZZ_SCHEMA_RUNS: process.env.FUZZ_SCHEMA_RUNS ?? '500',
};

const started = Date.now();
const r = spawnSync(
  'npx',
  [
    'vitest', 'run',
    '--project', 'shared', '--project', 'testkit', '--project', 'server',
    '--exclude', '**/*.api.test.ts',
    `--maxWorkers=${workers}`,
    '--reporter=default', '--reporter=json', `--outputFile.json=${json}`,
    ...process.argv.slice(2),
  ],
  { cwd: root, stdio: 'inherit', env },
);
const seconds = (Date.now() - started) / 1000;

// The slowest files first: where the next second of this tier is to be found.
if (fs.existsSync(json)) {
  const v = JSON.parse(fs.readFileSync(json, 'utf8'));
  const files = v.testResults.map((f) => ({ name: path.relative(root, f.name), ms: f.endTime - f.startTime })).sort((a, b) => b.ms - a.ms);
  console.log('\nSlowest files:');
  for (const f of files.slice(0, 5)) console.log(`  ${(f.ms / 1000).toFixed(1).padStart(6)} s  ${f.name}`);
  console.log(`\nFast tier: ${v.numTotalTestSuites ? files.length : 0} files, ${v.numPassedTests} passed, ${v.numFailedTests} failed, ${v.numPendingTests + (v.numTodoTests ?? 0)} skipped`);
}
console.log(`Fast tier took ${seconds.toFixed(1)} s (${workers} workers, FUZZ_CONVERTER_RUNS=${env.FUZZ_CONVERTER_RUNS}, FUZZ_SCHEMA_RUNS=${env.FUZZ_SCHEMA_RUNS})`);
process.exit(r.status ?? 1);
