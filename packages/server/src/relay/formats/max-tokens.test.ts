import { describe, expect, it } from 'vitest';
import { adapterFor } from '../adapters/registry.js';
import type { RequestInput, UpstreamCall } from '../adapters/types.js';
import { specOf } from './registry.js';
import type { ConvertContext, TextFormat, WireFormat } from './types.js';

/**
 * Each format's reply cap (docs/relay-billing.md "Spend limits"): read, set with the reasoning
 * budget kept below it, and the floor a reasoning body needs; then the request builder's step that
 * applies a clamp and the mapped model's output limit.
 */
const spec = (f: TextFormat) => specOf(f)!;

describe('anthropic-messages', () => {
  const s = spec('anthropic-messages');

  it('lowers an enabled thinking budget at or above the new cap, in a new object', () => {
    const thinking = { type: 'enabled', budget_tokens: 8000 };
    const body: Record<string, unknown> = { max_tokens: 32_000, thinking };
    s.setMaxTokens(body, 2000, 'claude-sonnet-4-5');
    expect(body).toEqual({ max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1999 } });
    expect(thinking.budget_tokens).toBe(8000);
    const room = { max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 4000 } };
    s.setMaxTokens(room, 20_000, 'claude-sonnet-4-5');
    expect(room.thinking.budget_tokens).toBe(4000);
  });

  it('needs max_tokens above 1024 with thinking enabled only', () => {
    expect(s.minMaxTokens!({ thinking: { type: 'enabled', budget_tokens: 2048 } }, 'm')).toBe(1025);
    expect(s.minMaxTokens!({ thinking: { type: 'adaptive' } }, 'm')).toBeUndefined();
    expect(s.minMaxTokens!({ thinking: { type: 'disabled' } }, 'm')).toBeUndefined();
    expect(s.maxTokens({ max_tokens: 77 })).toBe(77);
  });
});

describe('gemini', () => {
  const s = spec('gemini');

  it('lowers a positive thinkingBudget to below maxOutputTokens, either spelling', () => {
    const body: Record<string, unknown> = { generation_config: { max_output_tokens: 9000, thinking_config: { thinking_budget: 8000, include_thoughts: true } } };
    s.setMaxTokens(body, 500, 'gemini-2.5-flash');
    expect(body).toEqual({ generation_config: { maxOutputTokens: 500, thinking_config: { thinkingBudget: 499, include_thoughts: true } } });
    expect(s.maxTokens(body)).toBe(500);
  });

  it('leaves dynamic (-1) and off (0) budgets alone; floors by model', () => {
    for (const thinkingBudget of [-1, 0]) {
      const body = { generationConfig: { thinkingConfig: { thinkingBudget } } };
      s.setMaxTokens(body, 100, 'gemini-2.5-flash');
      expect(body.generationConfig).toEqual({ maxOutputTokens: 100, thinkingConfig: { thinkingBudget } });
      expect(s.minMaxTokens!(body, 'gemini-2.5-pro')).toBeUndefined();
    }
    const on = { generationConfig: { thinkingConfig: { thinkingBudget: 4000 } } };
    expect(s.minMaxTokens!(on, 'gemini-2.5-pro')).toBe(129);
    expect(s.minMaxTokens!(on, 'gemini-2.5-flash-lite')).toBe(513);
    expect(s.minMaxTokens!(on, 'gemini-2.5-flash')).toBe(2);
  });
});

describe('OpenAI formats', () => {
  it('read the cap the body sets', () => {
    expect(spec('openai-chat').maxTokens({ max_completion_tokens: 5, max_tokens: 9 })).toBe(5);
    expect(spec('openai-chat').maxTokens({ max_tokens: 9 })).toBe(9);
    expect(spec('openai-chat').maxTokens({})).toBeUndefined();
    expect(spec('openai-responses').maxTokens({ max_output_tokens: 12 })).toBe(12);
    expect(spec('openai-chat').minMaxTokens).toBeUndefined();
  });
});

describe('the request builder', () => {
  const cx = (model: string): ConvertContext => ({ lang: 'en', model, callerModel: 'caller', clientWantsUsage: false, requestId: 'r1', stream: false, dropped: [] });
  const call = (type: number, inbound: WireFormat, upstream: WireFormat, model: string): UpstreamCall => ({
    ch: { id: 1, type, key: 'k', baseUrl: 'http://127.0.0.1:9', other: '', organization: '', setting: {} } as UpstreamCall['ch'],
    mode: 'chat',
    inbound,
    upstream,
    model,
    stream: false,
    clientHeaders: {},
  });
  const build = async (c: UpstreamCall, body: Record<string, unknown>, extra: Partial<RequestInput> = {}) => {
    const req = await adapterFor(c.ch.type)!.buildRequest(c, { body, raw: Buffer.from(JSON.stringify(body)), contentType: 'application/json', callerModel: 'caller', cx: cx(c.model), ...extra });
    return JSON.parse(String(req.body)) as Record<string, unknown>;
  };

  it('caps max_tokens at the mapped model limit, converted or passed through; an unknown model keeps it', async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    expect((await build(call(1, 'openai-chat', 'openai-chat', 'gpt-4o'), { model: 'caller', messages, max_tokens: 32_000 })).max_tokens).toBe(16_384);
    expect((await build(call(14, 'openai-chat', 'anthropic-messages', 'claude-opus-4-1'), { model: 'caller', messages })).max_tokens).toBe(32_000);
    const thinking = await build(call(14, 'anthropic-messages', 'anthropic-messages', 'claude-opus-4-1'), { model: 'caller', messages, max_tokens: 50_000, thinking: { type: 'enabled', budget_tokens: 40_000 } });
    expect(thinking).toMatchObject({ max_tokens: 32_000, thinking: { budget_tokens: 31_999 } });
    expect((await build(call(1, 'openai-chat', 'openai-chat', 'my-llama'), { model: 'caller', messages, max_tokens: 500_000 })).max_tokens).toBe(500_000);
  });

  it('throws the given refusal when a clamp is under the thinking floor, and only then', async () => {
    const body = { model: 'caller', max_tokens: 32_000, thinking: { type: 'enabled', budget_tokens: 8000 }, messages: [{ role: 'user', content: 'hi' }] };
    const c = call(14, 'anthropic-messages', 'anthropic-messages', 'claude-sonnet-4-5');
    const refuseBelow = (min: number) => new Error(`needs ${min}`);
    await expect(build(c, body, { maxTokens: 800, refuseBelow })).rejects.toThrow('needs 1025');
    expect(await build(c, body, { maxTokens: 1500, refuseBelow })).toMatchObject({ max_tokens: 1500, thinking: { budget_tokens: 1499 } });
    // The caller's own max_tokens under the floor is the upstream's to judge, not a low balance.
    expect(await build(c, { ...body, max_tokens: 600 }, { maxTokens: 800, refuseBelow })).toMatchObject({ max_tokens: 600 });
  });
});
