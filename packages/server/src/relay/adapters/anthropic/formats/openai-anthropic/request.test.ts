import { describe, expect, it } from 'vitest';
import { agentBody, testContext } from '../../../../../test-support/convert-fixtures.js';
import { responsesToOpenAIRequest } from '../../../../formats/responses-openai/request.js';
import { openAIToAnthropicRequest } from './request.js';

/**
 * OpenAI chat → Anthropic Messages, also the second half of Responses → chat → Anthropic (Codex on an
 * Anthropic channel): later system turns stay in place, hints are noted, a prompt_cache_key asks for
 * cache breakpoints on the stable prefix (docs/providers.md "Conversion policy").
 */
type Msg = Record<string, unknown>;
const CLAUDE = 'claude-sonnet-4-6';

describe('OpenAI chat → Anthropic: the conversion policy', () => {
  it('keeps leading system turns as system, a later one as a user-role note in place', () => {
    const out = openAIToAnthropicRequest(
      {
        model: CLAUDE,
        messages: [
          { role: 'system', content: 'Be brief' },
          { role: 'developer', content: 'Use tools' },
          { role: 'user', content: 'hi' },
          { role: 'system', content: 'From now on answer in French' },
          { role: 'assistant', content: 'Salut' },
          { role: 'developer', content: 'Mind the time' },
        ],
      },
      testContext(CLAUDE),
    );
    expect(out.system).toEqual([{ type: 'text', text: 'Be brief' }, { type: 'text', text: 'Use tools' }]);
    expect(out.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'hi' }, { type: 'text', text: '[system] From now on answer in French' }] },
      { role: 'assistant', content: 'Salut' },
      { role: 'user', content: '[developer] Mind the time' },
    ]);
  });

  it('notes verbosity, seed, service_tier and unknown fields instead of refusing them; still refuses n > 1', () => {
    const cx = testContext(CLAUDE);
    const out = openAIToAnthropicRequest({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }], verbosity: 'low', seed: 1, service_tier: 'auto', store: false, future_hint: 1 }, cx);
    expect(out).not.toHaveProperty('verbosity');
    expect(cx.dropped).toEqual(['verbosity', 'seed', 'service_tier', 'future_hint']);
    expect(() => openAIToAnthropicRequest({ model: CLAUDE, messages: [{ role: 'user', content: 'hi' }], n: 2 }, testContext(CLAUDE))).toThrow(expect.objectContaining({ param: 'n' }));
  });

  it('a prompt_cache_key puts breakpoints on the last tool, the last system block and the final turn, and names the user', () => {
    const tools = [1, 2].map((n) => ({ type: 'function', function: { name: `t${n}`, parameters: { type: 'object' } } }));
    const out = openAIToAnthropicRequest({ model: CLAUDE, prompt_cache_key: 'sess-1', tools, messages: [{ role: 'system', content: 'S' }, { role: 'user', content: 'hi' }] }, testContext(CLAUDE));
    expect(out.tools).toEqual([
      { name: 't1', input_schema: { type: 'object' } },
      { name: 't2', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } },
    ]);
    expect(out.system).toEqual([{ type: 'text', text: 'S', cache_control: { type: 'ephemeral' } }]);
    expect(out.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'hi', cache_control: { type: 'ephemeral' } }] }]);
    expect(out.metadata).toEqual({ user_id: 'sess-1' });
    const plain = openAIToAnthropicRequest({ model: CLAUDE, tools, messages: [{ role: 'user', content: 'hi' }] }, testContext(CLAUDE));
    expect(JSON.stringify(plain)).not.toContain('cache_control');
  });
});

describe('Codex (Responses) → chat → Anthropic', () => {
  it('carries the developer turns, the custom tool, the cache key and the round trip; notes what Anthropic cannot take', () => {
    const cx = testContext(CLAUDE, { stream: true });
    const body = agentBody('codex', 'gpt-5.5.tool-result');
    const out = openAIToAnthropicRequest(responsesToOpenAIRequest(body, cx), cx);
    expect((out.system as Msg[]).length).toBe(2);
    const msgs = out.messages as Array<{ role: string; content: Msg[] }>;
    // Codex's two user items stay two turns (Messages joins consecutive turns of one role itself).
    expect(msgs.map((m) => m.role)).toEqual(['user', 'user', 'assistant', 'user']);
    const [call, output] = (body.input as Msg[]).slice(-2);
    expect(msgs[2]!.content).toEqual([{ type: 'tool_use', id: call!.call_id, name: 'exec_command', input: JSON.parse(call!.arguments as string) as Msg }]);
    expect(msgs[3]!.content).toEqual([{ type: 'tool_result', tool_use_id: call!.call_id, content: output!.output, cache_control: { type: 'ephemeral' } }]);
    const tools = out.tools as Msg[];
    expect(tools.map((t) => t.name)).toContain('apply_patch');
    expect(tools.at(-1)!.cache_control).toEqual({ type: 'ephemeral' });
    expect(out.metadata).toEqual({ user_id: body.prompt_cache_key });
    // Codex asked for reasoning, but this step answers a tool call whose thinking block (with its
    // signature) a Responses history cannot carry back: Anthropic would refuse it with thinking on.
    expect(out.thinking).toBeUndefined();
    expect(cx.dropped).toEqual(['include', 'tools.8(tool_search)', 'tools.9(web_search)', 'verbosity', 'reasoning_effort']);
  });
});

describe('OpenAI chat → Anthropic: reasoning in a tool-use loop', () => {
  const call = { id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } };
  const loop = [
    { role: 'user', content: 'Weather in Paris?' },
    { role: 'assistant', content: null, tool_calls: [call] },
    { role: 'tool', tool_call_id: 'call_1', content: '18°C, clear' },
  ];

  it('answers tool results without thinking (Anthropic would refuse a tool-use turn that lacks its thinking block), and says so', () => {
    const cx = testContext(CLAUDE);
    const out = openAIToAnthropicRequest({ model: CLAUDE, max_tokens: 4096, reasoning_effort: 'medium', messages: loop }, cx);
    expect(out.thinking).toBeUndefined();
    expect(cx.dropped).toEqual(['reasoning_effort']);
    expect((out.messages as Msg[])[1]).toEqual({ role: 'assistant', content: [{ type: 'tool_use', id: 'call_1', name: 'get_weather', input: { city: 'Paris' } }] });
  });

  it('keeps thinking when the last assistant turn called no tool (a new question after the loop)', () => {
    const cx = testContext(CLAUDE);
    const messages = [...loop, { role: 'assistant', content: 'It is 18°C and clear.' }, { role: 'user', content: 'And tomorrow?' }];
    const out = openAIToAnthropicRequest({ model: CLAUDE, max_tokens: 4096, reasoning_effort: 'medium', messages }, cx);
    expect(out.thinking).toEqual({ type: 'enabled', budget_tokens: expect.any(Number) });
    expect(cx.dropped ?? []).toEqual([]);
  });
});
