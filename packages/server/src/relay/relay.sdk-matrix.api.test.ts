import { FAKE_TOOL_INPUT, startFakeAnthropic, startFakeGemini, type FakeAnthropic, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { INGRESSES, PNG_B64, anthropicUpstream, geminiUpstream, openaiUpstream, type MatrixCaller, type Said, type Upstream } from '../test-support/sdk-matrix.js';

/**
 * The SDK matrix of issue 12: every ingress {OpenAI chat, Anthropic messages, Gemini, Responses},
 * called with its official SDK, × every upstream {OpenAI, Anthropic, Gemini} (testkit fakes): a
 * text reply, a stream, a tool round trip, an image, and for each the usage the caller sees and
 * the exact charge on the user, the token and the log — computed from the usage the fake reports
 * for the request it received and the ratios set here.
 */
let h: RelayHarness;
let claude: FakeAnthropic;
let gemini: FakeGemini;
const GPT = 'gpt-4';
const CLAUDE = 'claude-3-5-sonnet-20241022';
const GEMINI = 'gemini-2.0-flash';
/** [model ratio, completion ratio (the built-in rule for the model)]. */
const RATIOS: Record<string, [number, number]> = { [GPT]: [15, 2], [CLAUDE]: [1.5, 5], [GEMINI]: [2, 4] };
const price = (model: string, u: Said['usage']) => expectedCharge({ model, modelRatio: RATIOS[model]![0], completionRatio: RATIOS[model]![1] }, u);

const upstreams: Upstream[] = [];

beforeAll(async () => {
  h = await startRelayHarness();
  claude = await startFakeAnthropic({ apiKeys: ['sk-ant-upstream'] });
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify(Object.fromEntries(Object.entries(RATIOS).map(([m, [r]]) => [m, r]))));
  await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: GPT });
  await addChannel(h.root, { type: 14, name: 'claude', key: 'sk-ant-upstream', base_url: claude.url, models: CLAUDE });
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  upstreams.push(openaiUpstream(h.fake, GPT), anthropicUpstream(claude, CLAUDE), geminiUpstream(gemini, GEMINI));
});
afterAll(async () => {
  await claude.close();
  await gemini.close();
  await h.close();
});

const caller = async (): Promise<MatrixCaller> => ({ ...(await addCaller(h)), server: h.server });
const upstream = (name: string) => upstreams.find((u) => u.name === name)!;

/** Each leg charged exactly: the user's quota and used quota, the token's remain and used, one log per leg. */
async function expectCharged(c: MatrixCaller, before: Awaited<ReturnType<typeof balances>>, model: string, legs: Array<Said['usage'] & { stream: boolean }>) {
  const quotas = legs.map((l) => price(model, l));
  const total = quotas.reduce((a, b) => a + b, 0);
  const after = await balances(h, c);
  expect(before.quota - after.quota).toBe(total);
  expect(after.userUsed - before.userUsed).toBe(total);
  expect(before.remain - after.remain).toBe(total);
  expect(after.tokenUsed - before.tokenUsed).toBe(total);
  const logs = await consumeLogs(h, c.userId);
  expect(logs.map((l) => ({ model: l.model_name, prompt: l.prompt_tokens, completion: l.completion_tokens, quota: l.quota, stream: l.is_stream }))).toEqual(
    legs.map((l, i) => ({ model, prompt: l.prompt, completion: l.completion, quota: quotas[i], stream: l.stream ? 1 : 0 })),
  );
}

const UPSTREAM_NAMES = [{ up: 'OpenAI' }, { up: 'Anthropic' }, { up: 'Gemini' }];

describe.each(INGRESSES)('$name ingress', (ing) => {
  it.each(UPSTREAM_NAMES)('→ $up: text, usage and charge', async ({ up: name }) => {
    const up = upstream(name);
    const c = await caller();
    const before = await balances(h, c);
    const said = await ing.text(c, up.model);
    expect(said.text).toBe(up.reply);
    // "Hello there friend": 3 prompt tokens; 5 reply words.
    expect(up.lastUsage()).toEqual({ prompt: 3, completion: 5 });
    expect(said.usage).toEqual({ prompt: 3, completion: 5 });
    await expectCharged(c, before, up.model, [{ ...said.usage, stream: false }]);
  });

  it.each(UPSTREAM_NAMES)('→ $up: stream, usage and charge', async ({ up: name }) => {
    const up = upstream(name);
    const c = await caller();
    const before = await balances(h, c);
    const said = await ing.stream(c, up.model);
    expect(said.text).toBe(up.reply);
    expect(up.lastUsage()).toEqual({ prompt: 3, completion: 5 });
    expect(said.usage).toEqual({ prompt: 3, completion: 5 });
    await expectCharged(c, before, up.model, [{ ...said.usage, stream: true }]);
  });

  it.each(UPSTREAM_NAMES)('→ $up: tool call (streamed), the result sent back, the reply; both legs charged', async ({ up: name }) => {
    const up = upstream(name);
    const c = await caller();
    const before = await balances(h, c);
    const first = await ing.callTool(c, up.model);
    expect(first.call).toMatchObject({ name: 'get_weather', args: FAKE_TOOL_INPUT });
    // "what is the weather in Paris?": 6 prompt tokens (tool declarations count none); a call counts 5.
    const u1 = up.lastUsage();
    expect(u1).toEqual({ prompt: 6, completion: 5 });
    expect(first.usage).toEqual(u1);
    const second = await ing.answerTool(c, up.model, first.call);
    expect(second.text).toBe(up.reply);
    expect(up.lastToolResult()).toContain('sunny');
    const u2 = up.lastUsage();
    expect(u2.prompt).toBeGreaterThan(6);
    expect(second.usage).toEqual(u2);
    await expectCharged(c, before, up.model, [
      { ...u1, stream: true },
      { ...u2, stream: false },
    ]);
  });

  it.each(UPSTREAM_NAMES)('→ $up: image input (base64), usage and charge', async ({ up: name }) => {
    const up = upstream(name);
    const c = await caller();
    const before = await balances(h, c);
    const said = await ing.image(c, up.model);
    expect(said.text).toBe(up.reply);
    expect(up.lastImage()).toEqual({ mime: 'image/png', data: PNG_B64 });
    // "what is this?": 3 prompt tokens, plus what the upstream counts for an image.
    expect(up.lastUsage()).toEqual({ prompt: 3 + up.imageTokens, completion: 5 });
    expect(said.usage).toEqual({ prompt: 3 + up.imageTokens, completion: 5 });
    await expectCharged(c, before, up.model, [{ ...said.usage, stream: false }]);
  });
});
