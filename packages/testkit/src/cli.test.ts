import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const CLI = fileURLToPath(new URL('./cli.ts', import.meta.url));
let child: ChildProcessWithoutNullStreams | undefined;

afterAll(() => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
});

/** Resolves with the first stdout line matching `pattern`, or rejects after `ms`. */
function waitForLine(proc: ChildProcessWithoutNullStreams, pattern: RegExp, ms: number): Promise<RegExpExecArray> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    const timer = setTimeout(() => reject(new Error(`no match within ${ms} ms; stdout: ${out}; stderr: ${err}`)), ms);
    proc.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString();
    });
    proc.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const match = pattern.exec(out);
      if (match) {
        clearTimeout(timer);
        resolve(match);
      }
    });
  });
}

describe('cli', () => {
  it('runs the fake standalone, prints its URL, enforces --key and stops on SIGTERM', async () => {
    // tsx runs the source directly, so this test needs no prior build.
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--port', '0', '--key', 'sk-cli', '--chunks', '3'], { stdio: 'pipe' });
    const match = await waitForLine(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/u, 20_000);
    const url = match[1];

    const ok = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer sk-cli', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toMatchObject({ choices: [{ message: { content: 'Hello from the' } }], usage: { completion_tokens: 3 } });

    const denied = await fetch(`${url}/v1/models`, { headers: { authorization: 'Bearer nope' }, signal: AbortSignal.timeout(10_000) });
    expect(denied.status).toBe(401);

    const proc = child;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    const code = await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 10_000))]);
    expect(code).toBe(0);
  });

  it('runs the Anthropic fake with --provider anthropic', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--provider', 'anthropic', '--port', '0', '--key', 'sk-ant-cli'], { stdio: 'pipe' });
    const match = await waitForLine(child, /Anthropic upstream listening on (http:\/\/127\.0\.0\.1:\d+)/u, 20_000);
    const res = await fetch(`${match[1]}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': 'sk-ant-cli', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-3-5-haiku-20241022', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(await res.json()).toMatchObject({ type: 'message', content: [{ type: 'text', text: 'Hello from the fake Claude' }] });
    const proc = child;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('runs the Gemini fake with --provider gemini', async () => {
    child = spawn(process.execPath, ['--import', 'tsx', CLI, '--provider', 'gemini', '--port', '0', '--key', 'AIza-cli'], { stdio: 'pipe' });
    const match = await waitForLine(child, /Gemini upstream listening on (http:\/\/127\.0\.0\.1:\d+)/u, 20_000);
    const res = await fetch(`${match[1]}/v1beta/models/gemini-2.0-flash:generateContent`, {
      method: 'POST',
      headers: { 'x-goog-api-key': 'AIza-cli', 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      signal: AbortSignal.timeout(10_000),
    });
    expect(await res.json()).toMatchObject({ candidates: [{ content: { role: 'model', parts: [{ text: 'Hello from the fake Gemini' }] }, finishReason: 'STOP' }] });
    const proc = child;
    const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
    proc.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
