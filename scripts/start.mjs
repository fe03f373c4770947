#!/usr/bin/env node
// `npm start`: builds what is missing or stale (TypeScript incrementally, the console when its
// sources changed), then runs the server in the foreground with SQLite under ./data by default.
import { spawnSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
/**
 * A build step with one line of output: the compiler's and bundler's own (≈ 170 lines on a first
 * start) are shown only when the step fails. START_VERBOSE=1 shows them always.
 */
const run = (label, cmd, args) => {
  const verbose = process.env.START_VERBOSE === '1';
  const t = Date.now();
  if (!verbose) process.stdout.write(`building ${label}… `);
  const r = spawnSync(cmd, args, { cwd: root, stdio: verbose ? 'inherit' : 'pipe', shell: process.platform === 'win32', maxBuffer: 64 * 1024 * 1024 });
  if (r.status !== 0) {
    if (!verbose) {
      process.stdout.write('failed\n');
      process.stdout.write(r.stdout ?? '');
      process.stderr.write(r.stderr ?? '');
    }
    console.error(`npm start: building ${label} failed (exit ${r.status ?? r.signal}); fix the error above and start again.`);
    process.exit(r.status ?? 1);
  }
  if (!verbose) process.stdout.write(`done in ${((Date.now() - t) / 1000).toFixed(0)} s\n`);
};

// START_SKIP_BUILD=1: run what is built (a container image, a test), without checking sources.
const build = process.env.START_SKIP_BUILD !== '1';
if (build) run('the server', 'npx', ['tsc', '-b', 'packages/shared', 'packages/testkit', 'packages/server']);

function newestMtime(dir) {
  let newest = 0;
  if (!fs.existsSync(dir)) return newest;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(p) : fs.statSync(p).mtimeMs);
  }
  return newest;
}

const webDir = path.join(root, 'packages/web');
const webIndex = path.join(webDir, 'dist/index.html');
if (build && fs.existsSync(path.join(webDir, 'index.html'))) {
  const built = fs.existsSync(webIndex) ? fs.statSync(webIndex).mtimeMs : 0;
  if (built < Math.max(newestMtime(path.join(webDir, 'src')), fs.statSync(path.join(webDir, 'index.html')).mtimeMs)) {
    run('the console', 'npm', ['run', 'build', '-w', '@modelgate/web']);
  }
}

const child = spawn(process.execPath, [path.join(root, 'packages/server/dist/main.js')], { cwd: root, stdio: 'inherit' });
// Passed on so `kill <this pid>` stops the server too; the server treats a repeated signal (the same
// one sent to the whole group by Ctrl-C or systemd) as part of one graceful stop, and this script
// stays until the server has exited, with its exit code.
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
