#!/usr/bin/env node
// `npm run test:agents`: the agents tier — real Claude Code and Codex CLI, pinned, driving ModelGate
// (packages/server/src/agents/*.agents.test.ts). Installs the pinned clients into .tmp/agents when the
// right versions are not there yet (outside the project's package.json: they are large native
// binaries), then runs the tier's vitest config. `--json <file>` also writes vitest's JSON report.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const dir = process.env.AGENTS_CLIENTS_DIR ?? path.join(root, '.tmp', 'agents');
// Keep in step with packages/server/src/agents/clients.ts.
const CLIENTS = {
  '@anthropic-ai/claude-code': { version: '2.1.332', bin: 'claude' },
  '@openai/codex': { version: '0.171.0', bin: 'codex' },
};
const started = Date.now();

const installedVersion = (name) => {
  try {
    return JSON.parse(fs.readFileSync(path.join(dir, 'node_modules', name, 'package.json'), 'utf8')).version;
  } catch {
    return undefined;
  }
};
/** The client answers `--version` with its pinned version (Claude Code's bin is a stub until its postinstall ran). */
const works = (name) => {
  const { version, bin } = CLIENTS[name];
  const r = spawnSync(path.join(dir, 'node_modules', '.bin', bin), ['--version'], { encoding: 'utf8', timeout: 30_000 });
  return r.status === 0 && r.stdout.includes(version);
};

const missing = Object.keys(CLIENTS).filter((name) => installedVersion(name) !== CLIENTS[name].version || !works(name));
if (missing.length) {
  console.log(`agents tier: installing ${missing.map((n) => `${n}@${CLIENTS[n].version}`).join(', ')} into ${path.relative(root, dir) || dir}…`);
  fs.mkdirSync(dir, { recursive: true });
  // Claude Code's postinstall copies its native binary (from the optional platform package) over the bin stub.
  const manifest = { name: 'modelgate-agents-clients', private: true, allowScripts: { '@anthropic-ai/claude-code': true } };
  fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const specs = Object.entries(CLIENTS).map(([name, c]) => `${name}@${c.version}`);
  const r = spawnSync('npm', ['install', '--no-save', '--no-audit', '--no-fund', '--no-package-lock', '--prefix', dir, ...specs], { stdio: 'inherit', env: { ...process.env, npm_config_ignore_scripts: 'false' } });
  if (r.status !== 0) process.exit(r.status ?? 1);
  if (!works('@anthropic-ai/claude-code')) {
    // An npm that skipped the postinstall: run it (it only links or copies the platform binary).
    spawnSync('node', ['install.cjs'], { cwd: path.join(dir, 'node_modules', '@anthropic-ai', 'claude-code'), stdio: 'inherit' });
  }
  for (const name of Object.keys(CLIENTS)) {
    if (!works(name)) {
      console.error(`agents tier: ${name}@${CLIENTS[name].version} does not run after install`);
      process.exit(1);
    }
  }
}

const jsonAt = process.argv.indexOf('--json');
const jsonArgs = jsonAt > 0 ? ['--reporter=default', '--reporter=json', `--outputFile.json=${path.resolve(process.argv[jsonAt + 1])}`] : [];
const r = spawnSync('npx', ['vitest', 'run', '-c', 'vitest.agents.config.ts', ...jsonArgs], {
  cwd: path.join(root, 'packages', 'server'),
  stdio: 'inherit',
  env: { ...process.env, AGENTS_CLIENTS_DIR: dir },
});
console.log(`agents tier: ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(r.status ?? 1);
