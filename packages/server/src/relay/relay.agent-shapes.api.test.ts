import { AGENT_EXEC_SCRIPT } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { agentBody } from '../test-support/convert-fixtures.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/**
 * What Claude Code 2.1 and Codex 0.171 really send (relay/formats/fixtures/agents), through a real
 * server to converting channels (docs/providers.md "Conversion policy"): hints are left out with a
 * note in `x-modelgate-dropped` and the log's `other.dropped` instead of a 400, the tool round
 * trip works (a custom tool comes back as a `custom_tool_call`), and the charge is exact.
 */
type Msg = Record<string, unknown>;
let h: RelayHarness;
const CC = 'claude-opus-5-5';
const CODEX = 'gpt-6.2-sol';
const CODEX_CLASSIC = 'gpt-5.5';
/** Ratios set for these tests: model ratio, completion ratio. */
const RATIO: Record<string, [number, number]> = { [CC]: [2.5, 5], [CODEX]: [1.25, 8], [CODEX_CLASSIC]: [1.25, 8] };

beforeAll(async () => {
  h = await startRelayHarness({ fake: { agentScenario: true } });
  const o = h.server.ctx.options;
  await o.set('ModelRatio', JSON.stringify(Object.fromEntries(Object.entries(RATIO).map(([m, r]) => [m, r[0]]))));
  await o.set('CompletionRatio', JSON.stringify(Object.fromEntries(Object.entries(RATIO).map(([m, r]) => [m, r[1]]))));
  // Claude Code's default model served by OpenAI's gpt-5.5; Codex by a Custom (chat) channel.
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: CC, model_mapping: JSON.stringify({ [CC]: 'gpt-5.5' }) });
  await addChannel(h.root, { type: 8, name: 'custom', base_url: `${h.fake.url}/v1/chat/completions`, models: `${CODEX},${CODEX_CLASSIC}` });
});
afterAll(async () => {
  await h.close();
});

const lastUpstream = () => h.fake.requests.at(-1)!;
const post = (c: TestCaller, path: string, headers: Record<string, string>, body: Msg) =>
  fetch(`${h.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

/** The exact charge of the usage the fake reported for its last request. */
function lastCharge(model: string): number {
  const u = lastUpstream().usage as { prompt_tokens: number; completion_tokens: number };
  const [modelRatio, completionRatio] = RATIO[model]!;
  return expectedCharge({ modelRatio, completionRatio }, { prompt: u.prompt_tokens, completion: u.completion_tokens });
}

/** The caller's spend since `before`, checked equal on the user and the token, and the last log row's. */
async function charged(c: TestCaller, before: Awaited<ReturnType<typeof balances>>) {
  const after = await balances(h, c);
  expect(before.remain - after.remain).toBe(before.quota - after.quota);
  const log = (await consumeLogs(h, c.userId)).at(-1)!;
  expect(Number(log.quota)).toBe(before.quota - after.quota);
  return { spent: before.quota - after.quota, log, other: JSON.parse(log.other) as Msg };
}

describe('the dropped-field note under attack', () => {
  it('names hostile unknown keys (CR LF, commas, non-ASCII, 10 000 characters) safely: one header, the reply served, charged exactly', async () => {
    const c = await addCaller(h, { quota: 10_000_000, remain: 10_000_000 });
    const before = await balances(h, c);
    const hostile: Msg = { 'a\r\nSet-Cookie: x=1': 1, 'b,c': 2, 提示: 3, ['k'.repeat(10_000)]: 4 };
    for (let i = 0; i < 40; i++) hostile[`extra_${i}`] = i;
    const res = await post(c, '/v1/messages', { 'x-api-key': `sk-${c.key}`, 'anthropic-version': '2023-06-01' }, {
      model: CC,
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi' }],
      ...hostile,
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('set-cookie')).toBeNull();
    const names = res.headers.get('x-modelgate-dropped')!.split(',');
    expect(names.slice(0, 4)).toEqual(['a__Set-Cookie:_x=1', 'b_c', '__', 'k'.repeat(64)]);
    expect(names).toHaveLength(20);
    const { other } = await charged(c, before);
    expect(other.dropped).toEqual(names);
  });
});

describe('Claude Code → an OpenAI channel', () => {
  const headers = (c: TestCaller) => ({ 'x-api-key': `sk-${c.key}`, 'anthropic-version': '2023-06-01', 'anthropic-beta': 'claude-code-20250219,context-management-2025-06-27,per-turn-control-2026-07-01' });

  it('first turn: converted, context_management left out with a note in the header and the log, the Bash call back, charged exactly', async () => {
    // Enough balance for Claude Code's max_tokens 128000 unclamped.
    const c = await addCaller(h, { quota: 10_000_000, remain: 10_000_000 });
    const before = await balances(h, c);
    const res = await post(c, '/v1/messages?beta=true', headers(c), { ...agentBody('claude-code', 'default-claude-opus-5-5.first'), stream: false });
    expect(res.status).toBe(200);
    const dropped = ['context_management', 'cache_control', 'messages.1.output_config', 'tools.defer_loading'];
    expect(res.headers.get('x-modelgate-dropped')).toBe(dropped.join(','));
    const reply = (await res.json()) as { content: Msg[]; stop_reason: string };
    expect(reply.stop_reason).toBe('tool_use');
    expect(reply.content).toEqual([expect.objectContaining({ type: 'tool_use', name: 'Bash', input: { command: 'echo MG_AGENT_OK', description: 'Print the agent marker' } })]);
    const sent = lastUpstream().body as Msg;
    expect(sent).not.toHaveProperty('context_management');
    expect(sent).toMatchObject({ model: 'gpt-5.5', max_completion_tokens: 128000, reasoning_effort: 'medium' });
    expect((sent.messages as Msg[]).map((m) => m.role)).toEqual(['system', 'user', 'system']);
    const { spent, other } = await charged(c, before);
    expect(spent).toBe(lastCharge(CC));
    expect(other.dropped).toEqual(dropped);
  });

  it('second turn, streamed: the tool result goes up as a tool message, the answer quotes it, charged exactly', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await post(c, '/v1/messages?beta=true', headers(c), agentBody('claude-code', 'default-claude-opus-5-5.tool-result'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-dropped')).toContain('context_management');
    const sse = await res.text();
    const text = [...sse.matchAll(/"text_delta","text":"([^"]*)"/g)].map((m) => m[1]).join('');
    expect(text).toContain('MG_AGENT_OK');
    expect(sse.trim().endsWith('event: message_stop\ndata: {"type":"message_stop"}')).toBe(true);
    expect((lastUpstream().body as { messages: Msg[] }).messages.map((m) => m.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool']);
    const { spent, log, other } = await charged(c, before);
    expect(log.is_stream).toBeTruthy();
    expect(spent).toBe(lastCharge(CC));
    expect(other.dropped).toContain('context_management');
  });
});

describe('Codex → a Custom (chat) channel', () => {
  const headers = (c: TestCaller) => ({ authorization: `Bearer sk-${c.key}` });

  /** The Responses events of an SSE reply. */
  const events = async (res: Response) =>
    (await res.text())
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)) as Msg);

  it('default model: the custom exec tool is called and comes back as a custom_tool_call; include and reasoning.context are noted', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await post(c, '/v1/responses', headers(c), agentBody('codex', 'default-gpt-6.2-sol.first'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-dropped')).toBe('include,reasoning.context');
    const evs = await events(res);
    const done = evs.find((e) => e.type === 'response.output_item.done')!.item as Msg;
    expect(done).toMatchObject({ type: 'custom_tool_call', namespace: 'functions', name: 'exec', input: AGENT_EXEC_SCRIPT, status: 'completed' });
    expect(evs.find((e) => e.type === 'response.custom_tool_call_input.done')).toMatchObject({ input: AGENT_EXEC_SCRIPT, item_id: done.id });
    expect(evs.at(-1)!.type).toBe('response.completed');
    const sent = lastUpstream().body as Msg;
    expect(sent).toMatchObject({ model: CODEX, prompt_cache_key: '<ID-1>', verbosity: 'low', stream_options: { include_usage: true } });
    expect(sent).not.toHaveProperty('client_metadata');
    const { spent, other } = await charged(c, before);
    expect(spent).toBe(lastCharge(CODEX));
    expect(other.dropped).toEqual(['include', 'reasoning.context']);
  });

  it('default model, the custom tool output sent back: answered with text, charged exactly', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await post(c, '/v1/responses', headers(c), agentBody('codex', 'default-gpt-6.2-sol.tool-result'));
    expect(res.status).toBe(200);
    const evs = await events(res);
    const text = evs.filter((e) => e.type === 'response.output_text.delta').map((e) => e.delta).join('');
    expect(text).toContain('MG_AGENT_OK');
    const last = (lastUpstream().body as { messages: Msg[] }).messages.slice(-2);
    expect(last[0]).toMatchObject({ role: 'assistant', tool_calls: [{ id: 'call_cap1', function: { name: 'exec' } }] });
    expect(last[1]).toMatchObject({ role: 'tool', tool_call_id: 'call_cap1' });
    const { spent } = await charged(c, before);
    expect(spent).toBe(lastCharge(CODEX));
  });

  it('gpt-5.5: web_search and tool_search are left out with a note, exec_command is called', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await post(c, '/v1/responses', headers(c), agentBody('codex', 'gpt-5.5.first'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-dropped')).toBe('include,tools.8(tool_search),tools.9(web_search)');
    const done = (await events(res)).find((e) => e.type === 'response.output_item.done')!.item as Msg;
    expect(done).toMatchObject({ type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'echo MG_AGENT_OK' }) });
    const { spent } = await charged(c, before);
    expect(spent).toBe(lastCharge(CODEX_CLASSIC));
  });
});
