import { emptyUsage, priceFor, usageQuota, type Usage } from '@modelgate/shared';
import { AGENT_MARKER, startFakeAnthropic, type AnthropicRecordedRequest, type FakeAnthropic, type RecordedRequest } from '@modelgate/testkit';
import { expect } from 'vitest';
import { pricingTables } from '../relay/relay.service.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';

/**
 * The world of the `agents` tier: one ModelGate server, a fake Anthropic and a fake OpenAI playing the
 * scripted agent session (testkit openai-fake/agent-scenario.ts), and one channel of each kind the issue
 * names, each in its own group so a caller of that group reaches exactly that channel.
 */

/** The clients' default models as recorded (fixtures/agents/*), the models the issue named, and the side-call model. */
export const AGENT_MODELS = ['claude-opus-5-5', 'claude-opus-4-8', 'claude-sonnet-4-6', 'claude-haiku-4-5', 'gpt-6.2-sol', 'gpt-5.5'];
export const ANTHROPIC_KEY = 'sk-ant-agents-upstream';
export const OPENAI_KEY = 'sk-openai-agents-upstream';
/** Of each Anthropic prompt the fake reports 2 tokens read from the cache and 3 written; the OpenAI fake 2 cached. */
const CACHE = { read: 2, write: 3 };

export type ChannelKind = 'anthropic' | 'openai' | 'custom';
export const CHANNEL_KINDS: Array<{ kind: ChannelKind; label: string; type: number }> = [
  { kind: 'anthropic', label: 'an Anthropic channel (type 14)', type: 14 },
  { kind: 'openai', label: 'an OpenAI channel (type 1)', type: 1 },
  { kind: 'custom', label: 'a Custom channel (type 8)', type: 8 },
];

export interface AgentWorld {
  h: RelayHarness;
  claude: FakeAnthropic;
  close(): Promise<void>;
}

const groupOf = (kind: ChannelKind) => `agents-${kind}`;

export async function startAgentWorld(): Promise<AgentWorld> {
  const h = await startRelayHarness({ fake: { agentScenario: true, apiKeys: [OPENAI_KEY], cachedTokens: CACHE.read } });
  const claude = await startFakeAnthropic({ agentScenario: true, apiKeys: [ANTHROPIC_KEY], cacheReadTokens: CACHE.read, cacheCreationTokens: CACHE.write });
  const models = AGENT_MODELS.join(',');
  await addChannel(h.root, { type: 14, name: 'agents-anthropic', key: ANTHROPIC_KEY, base_url: claude.url, models, group: groupOf('anthropic') });
  await addChannel(h.root, { type: 1, name: 'agents-openai', key: OPENAI_KEY, base_url: h.fake.url, models, group: groupOf('openai') });
  await addChannel(h.root, { type: 8, name: 'agents-custom', key: OPENAI_KEY, base_url: `${h.fake.url}/v1/chat/completions`, models, group: groupOf('custom') });
  // Models the price table does not know yet get ratio 1 (H2 prices the current ones; a model already
  // priced keeps its price), so the tier checks relaying and exact billing rather than the table.
  const table = h.server.ctx.options.json<Record<string, number>>('ModelRatio', {});
  for (const m of AGENT_MODELS) if (typeof table[m] !== 'number') table[m] = 1;
  await h.server.ctx.options.set('ModelRatio', JSON.stringify(table));
  const groups = h.server.ctx.options.json<Record<string, number>>('GroupRatio', {});
  for (const c of CHANNEL_KINDS) groups[groupOf(c.kind)] = 1;
  await h.server.ctx.options.set('GroupRatio', JSON.stringify(groups));
  return {
    h,
    claude,
    async close() {
      await claude.close();
      await h.close();
    },
  };
}

/** A caller in the group of `kind`'s channel, its token key as the client sends it (`sk-…`). */
export async function agentCaller(w: AgentWorld, kind: ChannelKind): Promise<TestCaller & { token: string }> {
  const c = await addCaller(w.h, { quota: 50_000_000, remain: 40_000_000, group: groupOf(kind) });
  return { ...c, token: `sk-${c.key}` };
}

/** The upstream requests one scenario caused: those the fake of `kind`'s channel received since `mark`. */
export function upstreamMark(w: AgentWorld, kind: ChannelKind): () => Array<AnthropicRecordedRequest | RecordedRequest> {
  const list: Array<AnthropicRecordedRequest | RecordedRequest> = kind === 'anthropic' ? w.claude.requests : w.h.fake.requests;
  const start = list.length;
  return () => list.slice(start);
}

const num = (v: unknown) => (typeof v === 'number' ? v : 0);
const rec = (v: unknown): Record<string, unknown> => (typeof v === 'object' && v !== null ? (v as Record<string, unknown>) : {});

/** The usage a fake reported (Anthropic Messages, OpenAI chat or Responses), normalised as the bill counts it. */
export function reportedUsage(u: unknown): Usage {
  const r = rec(u);
  const out = emptyUsage();
  if ('cache_read_input_tokens' in r) {
    out.cachedTokens = num(r.cache_read_input_tokens);
    out.cacheWriteTokens = num(r.cache_creation_input_tokens);
    out.promptTokens = num(r.input_tokens) + out.cachedTokens + out.cacheWriteTokens;
    out.completionTokens = num(r.output_tokens);
  } else if ('input_tokens' in r) {
    out.promptTokens = num(r.input_tokens);
    out.cachedTokens = num(rec(r.input_tokens_details).cached_tokens);
    out.completionTokens = num(r.output_tokens);
    out.reasoningTokens = num(rec(r.output_tokens_details).reasoning_tokens);
  } else {
    out.promptTokens = num(r.prompt_tokens);
    out.cachedTokens = num(rec(r.prompt_tokens_details).cached_tokens);
    out.completionTokens = num(r.completion_tokens);
    out.reasoningTokens = num(rec(r.completion_tokens_details).reasoning_tokens);
  }
  return out;
}

/**
 * Money after one client session: every upstream request the fake answered has one consume log row
 * (same order), each row's tokens are what the fake reported and its quota is the price of that usage
 * (the shared pricing function over the live option tables); the user's quota, the token's remaining
 * quota and the rows' sum all moved by exactly that total.
 */
export async function assertBilledExactly(
  w: AgentWorld,
  c: TestCaller,
  before: Awaited<ReturnType<typeof balances>>,
  upstream: Array<AnthropicRecordedRequest | RecordedRequest>,
  group: string,
): Promise<number> {
  const answered = upstream.filter((r) => r.usage !== undefined);
  const logs = await consumeLogs(w.h, c.userId);
  expect(logs.length, 'one consume log row per answered upstream request').toBe(answered.length);
  const tables = pricingTables(w.h.server.ctx);
  let total = 0;
  answered.forEach((r, i) => {
    const log = logs[i]!;
    const usage = reportedUsage(r.usage);
    const expected = usageQuota(priceFor(log.model_name, group, tables), usage);
    expect({ prompt: log.prompt_tokens, completion: log.completion_tokens, quota: log.quota }, `log row ${i + 1} (${log.model_name})`).toEqual({
      prompt: usage.promptTokens,
      completion: usage.completionTokens,
      quota: expected,
    });
    total += expected;
  });
  const after = await balances(w.h, c);
  expect(before.quota - after.quota, 'user quota drop').toBe(total);
  expect(before.remain - after.remain, 'token remaining drop').toBe(total);
  expect(after.tokenUsed - before.tokenUsed, 'token used').toBe(total);
  expect(logs.reduce((s, l) => s + Number(l.quota), 0), 'log quota sum').toBe(total);
  return total;
}

/** Whether an upstream request (Messages, chat or Responses) carries a tool result holding the marker. */
export function carriesToolResult(body: unknown): boolean {
  const b = rec(body);
  const has = (v: unknown) => JSON.stringify(v ?? '').includes(AGENT_MARKER);
  const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
  for (const m of list(b.messages)) {
    const msg = rec(m);
    if (msg.role === 'tool' && has(msg.content)) return true;
    for (const block of list(msg.content)) if (rec(block).type === 'tool_result' && has(rec(block).content)) return true;
  }
  for (const item of list(b.input)) {
    const i = rec(item);
    if ((i.type === 'function_call_output' || i.type === 'custom_tool_call_output') && has(i.output)) return true;
  }
  return false;
}

export { balances, groupOf };
