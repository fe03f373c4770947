import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The real agent clients of the `agents` tier, pinned: scripts/test-agents.mjs installs them into
 * `.tmp/agents` (AGENTS_CLIENTS_DIR overrides) before this tier runs. Each run gets a fresh HOME and
 * working directory outside any git checkout, every "no telemetry / no update / no nonessential
 * traffic" switch the client has, and no model flag: the client's default settings.
 */
export const CLAUDE_CODE_VERSION = '2.1.332';
export const CODEX_VERSION = '0.171.0';
export const RUN_TIMEOUT_MS = 90_000;
/** The prompt both clients get; the fakes' scripted session answers it with one shell tool call. */
export const AGENT_PROMPT = 'Run the shell command `echo MG_AGENT_OK` and tell me what it printed.';

const repoRoot = resolve(fileURLToPath(new URL('.', import.meta.url)), '../../../..');
export const clientsDir = process.env.AGENTS_CLIENTS_DIR ?? join(repoRoot, '.tmp', 'agents');
const bin = (name: string) => join(clientsDir, 'node_modules', '.bin', name);

export interface ClientRun {
  code: number | null;
  signal: string | null;
  stdout: string;
  stderr: string;
  timedOut: boolean;
  ms: number;
}

function assertInstalled(name: string): string {
  const path = bin(name);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run test:agents\` (it installs the pinned clients into ${clientsDir})`);
  return path;
}

function run(cmd: string, args: string[], env: Record<string, string>, cwd: string): Promise<ClientRun> {
  const started = Date.now();
  return new Promise((done) => {
    // Detached: the client's own children (shells it runs) go with it when the timeout kills the group.
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    }, RUN_TIMEOUT_MS);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      done({ code, signal, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** A fresh HOME and working directory for one client run; `dispose` removes both. */
export async function sandbox(): Promise<{ home: string; work: string; dispose(): Promise<void> }> {
  const root = await mkdtemp(join(tmpdir(), 'mg-agents-'));
  const home = join(root, 'home');
  const work = join(root, 'work');
  await mkdir(home);
  await mkdir(work);
  return { home, work, dispose: () => rm(root, { recursive: true, force: true }) };
}

const baseEnv = (home: string): Record<string, string> => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: home, LANG: 'C.UTF-8', TERM: 'dumb' });

/** Claude Code on its default settings (`claude -p`, no --model), pointed at `baseUrl` with a ModelGate token. */
export async function runClaudeCode(baseUrl: string, token: string, opts: { outputFormat?: 'json' | 'stream-json' } = {}): Promise<ClientRun> {
  const claude = assertInstalled('claude');
  const box = await sandbox();
  try {
    const env = {
      ...baseEnv(box.home),
      ANTHROPIC_BASE_URL: baseUrl,
      ANTHROPIC_API_KEY: token,
      DISABLE_AUTOUPDATER: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      // Root in CI: --dangerously-skip-permissions needs it.
      IS_SANDBOX: '1',
      // A refusal fails the run at once instead of after minutes of backoff.
      CLAUDE_CODE_MAX_RETRIES: '0',
    };
    const format = opts.outputFormat ?? 'json';
    const args = ['-p', AGENT_PROMPT, '--output-format', format, ...(format === 'stream-json' ? ['--verbose'] : []), '--dangerously-skip-permissions'];
    return await run(claude, args, env, box.work);
  } finally {
    await box.dispose();
  }
}

/** Codex on its default settings (`codex exec`, no -m), with a Responses provider pointing at ModelGate. */
export async function runCodex(baseUrl: string, token: string): Promise<ClientRun> {
  const codex = assertInstalled('codex');
  const box = await sandbox();
  try {
    const config = [
      'model_provider = "modelgate"',
      // No update check, analytics or feedback upload: the machine reaches only ModelGate.
      'check_for_update_on_startup = false',
      '',
      '[analytics]',
      'enabled = false',
      '',
      '[feedback]',
      'enabled = false',
      '',
      '[model_providers.modelgate]',
      'name = "ModelGate"',
      `base_url = "${baseUrl}/v1"`,
      'env_key = "MODELGATE_API_KEY"',
      'wire_api = "responses"',
      'request_max_retries = 0',
      'stream_max_retries = 0',
      '',
    ].join('\n');
    await writeFile(join(box.home, 'config.toml'), config);
    const env = { ...baseEnv(box.home), CODEX_HOME: box.home, MODELGATE_API_KEY: token };
    return await run(codex, ['exec', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox', AGENT_PROMPT], env, box.work);
  } finally {
    await box.dispose();
  }
}

/** A run's output for an assertion message. */
export function describeRun(r: ClientRun): string {
  const tail = (s: string) => (s.length > 4000 ? `…${s.slice(-4000)}` : s);
  return `exit ${String(r.code)}${r.signal ? ` (${r.signal})` : ''}${r.timedOut ? ' TIMED OUT' : ''} after ${r.ms} ms\n--- stdout\n${tail(r.stdout)}\n--- stderr\n${tail(r.stderr)}`;
}
