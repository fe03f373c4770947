import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { AGENT_EXEC_SCRIPT, startFakeAnthropic, startFakeOpenAI, type FakeAnthropic, type FakeOpenAI } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The recorded client requests (relay/formats/fixtures/agents, recorded from the pinned clients of the
 * agents tier) are scrubbed, and the fakes accept them as the documented APIs do and play the scripted
 * agent session on them: a runnable check of the fakes without the clients installed.
 */
const dir = fileURLToPath(new URL('../relay/formats/fixtures/agents/', import.meta.url));
interface Capture {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}
const load = (client: string, name: string) => JSON.parse(readFileSync(join(dir, client, name), 'utf8')) as Capture;

let claude: FakeAnthropic;
let openai: FakeOpenAI;
beforeAll(async () => {
  claude = await startFakeAnthropic({ agentScenario: true });
  openai = await startFakeOpenAI({ agentScenario: true });
});
afterAll(async () => {
  await claude.close();
  await openai.close();
});

describe('recorded agent requests', () => {
  it('carry no machine paths, keys or ids', () => {
    for (const client of ['claude-code', 'codex']) {
      for (const f of readdirSync(join(dir, client))) {
        const text = readFileSync(join(dir, client, f), 'utf8');
        // (`/root` alone is Codex's name for its main agent, `<root>` a tag of its environment context.)
        expect(text, f).not.toMatch(/\/tmp\/|\/root\/|\/home\/|127\.0\.0\.1:\d|Bearer sk-(?!<)|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/);
      }
    }
  });
});

async function messages(c: Capture, dropBeta = false): Promise<{ status: number; body: Record<string, unknown> }> {
  const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': 'k', 'anthropic-version': c.headers['anthropic-version']! };
  if (!dropBeta) headers['anthropic-beta'] = c.headers['anthropic-beta']!;
  const res = await fetch(`${claude.url}${c.url}`, { method: 'POST', headers, body: JSON.stringify({ ...c.body, stream: false }) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('the Anthropic fake on Claude Code 2.1.332 requests', () => {
  const first = load('claude-code', 'default-claude-opus-5-5.first.json');
  const second = load('claude-code', 'default-claude-opus-5-5.tool-result.json');

  it('accepts adaptive thinking, context_management, output_config and the mid-conversation system turn, and calls Bash', async () => {
    const r = await messages(first);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stop_reason: 'tool_use', content: [{ type: 'tool_use', name: 'Bash', input: { command: 'echo MG_AGENT_OK' } }] });
  });

  it('answers the tool result with text quoting it', async () => {
    const r = await messages(second);
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ stop_reason: 'end_turn', content: [{ type: 'text', text: 'The command printed: MG_AGENT_OK' }] });
    expect(claude.requests.at(-1)!.usage).toMatchObject({ output_tokens: 4 });
  });

  it('refuses the beta-only fields without their anthropic-beta flags, as Anthropic does', async () => {
    const r = await messages(first, true);
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.body)).toContain('context_management: Extra inputs are not permitted');
    const { context_management: _cm, thinking: _t, ...rest } = first.body;
    const again = await messages({ ...first, body: rest }, true);
    // Anthropic's answer when a gateway drops per-turn-control (the system turn carries output_config).
    expect(JSON.stringify(again.body)).toContain('messages.1.output_config: Extra inputs are not permitted');
  });
});

async function responses(c: Capture): Promise<Record<string, unknown>> {
  const res = await fetch(`${openai.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...c.body, stream: false }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Record<string, unknown>;
}

describe('the OpenAI fake on Codex 0.171.0 requests', () => {
  it('default model gpt-6.2-sol: calls the freeform exec tool offered in additional_tools, then quotes its output', async () => {
    const first = await responses(load('codex', 'default-gpt-6.2-sol.first.json'));
    expect(first.output).toEqual([expect.objectContaining({ type: 'custom_tool_call', namespace: 'functions', name: 'exec', input: AGENT_EXEC_SCRIPT })]);
    const second = await responses(load('codex', 'default-gpt-6.2-sol.tool-result.json'));
    expect(JSON.stringify(second.output)).toContain('The command printed: Script completed');
    expect(JSON.stringify(second.output)).toContain('MG_AGENT_OK');
  });

  it('gpt-5.5: calls the exec_command function with its cmd argument, then quotes its output', async () => {
    const first = await responses(load('codex', 'gpt-5.5.first.json'));
    expect(first.output).toEqual([expect.objectContaining({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo MG_AGENT_OK' }) })]);
    const second = await responses(load('codex', 'gpt-5.5.tool-result.json'));
    expect(JSON.stringify(second.output)).toContain('MG_AGENT_OK');
  });

  it('chat completions: a Bash function is called, a tool message is answered', async () => {
    const tools = [{ type: 'function', function: { name: 'Bash', parameters: { type: 'object', properties: { command: { type: 'string' } } } } }];
    const ask = async (messages: unknown[]) => {
      const res = await fetch(`${openai.url}/v1/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude-opus-5-5', messages, tools }) });
      return ((await res.json()) as { choices: Array<{ message: Record<string, unknown> }> }).choices[0]!.message;
    };
    const call = await ask([{ role: 'user', content: 'go' }]);
    expect(call.tool_calls).toEqual([expect.objectContaining({ type: 'function', function: { name: 'Bash', arguments: JSON.stringify({ command: 'echo MG_AGENT_OK', description: 'Print the agent marker' }) } })]);
    const answer = await ask([{ role: 'user', content: 'go' }, { role: 'assistant', content: null, tool_calls: call.tool_calls }, { role: 'tool', tool_call_id: 'x', content: 'MG_AGENT_OK' }]);
    expect(answer.content).toBe('The command printed: MG_AGENT_OK');
  });
});
