import { describe, expect, it } from 'vitest';
import { modelOutputLimit } from './model-limits.js';

describe('modelOutputLimit', () => {
  it.each([
    ['claude-opus-4-8', 128_000],
    ['claude-opus-4-6', 128_000],
    ['claude-opus-4-5-20251101', 64_000],
    ['claude-opus-4-1-20250805', 32_000],
    ['claude-opus-4-20250514', 32_000],
    ['claude-sonnet-4-6', 128_000],
    ['claude-sonnet-4-5-20250929', 64_000],
    ['claude-sonnet-4-20250514', 64_000],
    ['claude-haiku-4-5', 64_000],
    ['claude-3-5-sonnet-20241022', 8_192],
    ['claude-3-haiku-20240307', 4_096],
    ['gpt-4o', 16_384],
    ['gpt-4o-mini', 16_384],
    ['gpt-4.1-mini', 32_768],
    ['gpt-5.5', 128_000],
    ['gpt-5-chat-latest', 16_384],
    ['o1', 100_000],
    ['o3-mini', 100_000],
    ['o4-mini', 100_000],
    ['gemini-2.5-pro', 65_536],
    ['gemini-2.0-flash', 8_192],
    ['deepseek-chat', 8_192],
    ['deepseek-reasoner', 65_536],
  ])('%s → %i', (model, limit) => {
    expect(modelOutputLimit(model)).toBe(limit);
  });

  it('reads Bedrock and Vertex spellings of a Claude model', () => {
    expect(modelOutputLimit('us.anthropic.claude-sonnet-4-5-20250929-v1:0')).toBe(64_000);
    expect(modelOutputLimit('anthropic.claude-opus-4-6-v1:0')).toBe(128_000);
    expect(modelOutputLimit('claude-sonnet-4-5@20250929')).toBe(64_000);
  });

  it('knows no limit for a model it does not list', () => {
    expect(modelOutputLimit('my-local-llama')).toBeUndefined();
    expect(modelOutputLimit('claude-next')).toBeUndefined();
  });
});
