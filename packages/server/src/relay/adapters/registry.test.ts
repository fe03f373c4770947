import { channelTypeInfo, isChannelType } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { ADAPTERS } from './registry.js';

describe('adapter registry and the shared channel-type table', () => {
  it('registers only types the shared table knows, so channel saves accept every relayable type', () => {
    for (const a of ADAPTERS) for (const t of a.types) expect(isChannelType(t), `${a.slug} type ${t}`).toBe(true);
  });

  it('takes each default upstream address from the shared table (the one the console shows)', () => {
    const expected: Record<string, string> = {
      openai: 'https://api.openai.com',
      azure: '',
      custom: '',
      ollama: 'http://localhost:11434',
      'openai-max': 'https://api.openaimax.com',
      ai360: 'https://ai.360.cn',
      openrouter: 'https://openrouter.ai/api',
      fastgpt: 'https://fastgpt.run/api/openapi',
      deepseek: 'https://api.deepseek.com',
      mistral: 'https://api.mistral.ai',
    };
    for (const a of ADAPTERS) {
      expect(a.defaultBaseUrl, a.slug).toBe(channelTypeInfo(a.types[0]!)!.baseUrl);
      if (a.slug in expected) expect(a.defaultBaseUrl, a.slug).toBe(expected[a.slug]);
    }
  });
});
