import { describe, expect, it } from 'vitest';
import { readUsage } from './pricing.js';

// The cost formula's table-driven tests live with it in packages/shared/src/pricing.test.ts.
describe('readUsage', () => {
  it('normalises OpenAI and gpt-image usage objects', () => {
    expect(readUsage({ prompt_tokens: 5, completion_tokens: 2, prompt_tokens_details: { cached_tokens: 1 }, completion_tokens_details: { reasoning_tokens: 1 } })).toMatchObject({
      promptTokens: 5,
      completionTokens: 2,
      cachedTokens: 1,
      reasoningTokens: 1,
    });
    expect(readUsage({ input_tokens: 3, output_tokens: 272 })).toMatchObject({ promptTokens: 3, completionTokens: 272 });
    expect(readUsage({ prompt_tokens: 0, completion_tokens: 0 })).toBeUndefined();
    expect(readUsage(null)).toBeUndefined();
  });
});
