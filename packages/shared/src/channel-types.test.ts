import { describe, expect, it } from 'vitest';
import { CHANNEL_TYPE_ORDER, CHANNEL_TYPES, ChannelType, channelTypeColor, channelTypeInfo, modelsForType, splitChannelKeys } from './channel-types.js';

describe('channel types', () => {
  it('list the spec §3 types in its order', () => {
    const spec =
      '1 OpenAI, 2 Midjourney Proxy, 5 Midjourney Proxy Plus, 36 Suno API, 4 Ollama, 14 Anthropic Claude, 33 AWS Claude, 41 Vertex AI, 3 Azure OpenAI, 34 Cohere, 39 Cloudflare, 43 DeepSeek, 15 Baidu, 17 Alibaba Qwen, 18 iFlytek Spark, 16 Zhipu ChatGLM, 26 Zhipu GLM-4V, 24 Google Gemini, 11 Google PaLM2, 25 Moonshot, 19 360, 23 Tencent Hunyuan, 31 01.AI, 35 MiniMax, 37 Dify, 38 Jina, 40 SiliconCloud, 42 Mistral AI, 8 custom, 22 FastGPT knowledge base, 21 AI Proxy knowledge base';
    // The video upstreams of issue 34 follow the spec's list.
    expect(CHANNEL_TYPE_ORDER).toEqual([...spec.split(', ').map((entry) => Number(entry.split(' ')[0])), 55, 50, 54, 52, 51]);
    for (const entry of spec.split(', ').slice(0, 27)) {
      const [id, ...name] = entry.split(' ');
      expect(channelTypeInfo(Number(id))?.name).toBe(name.join(' '));
    }
  });

  it('describe every named type', () => {
    for (const id of Object.values(ChannelType)) expect(CHANNEL_TYPES.get(id)?.id, String(id)).toBe(id);
    expect(CHANNEL_TYPES.size).toBe(Object.keys(ChannelType).length);
  });

  it('carry the console colour, the default address and the type-specific fields', () => {
    expect(channelTypeColor(14)).toBe('purple');
    expect(channelTypeColor(999)).toBe('default');
    expect(channelTypeInfo(1)).toMatchObject({ baseUrl: 'https://api.openai.com', organization: true, balance: true, testable: true });
    expect(channelTypeInfo(3)).toMatchObject({ baseUrlField: 'azure', other: 'azureVersion', defaultOther: '2023-06-01-preview' });
    expect(channelTypeInfo(18)).toMatchObject({ other: 'sparkVersion', defaultOther: 'v2.1', keyHint: 'APPID|APISecret|APIKey' });
    expect(channelTypeInfo(36)).toMatchObject({ testable: false, baseUrlField: 'suno' });
  });

  it('prefill fixed model lists (spec §4) and the server’s list otherwise', () => {
    expect(modelsForType(2, undefined)).toEqual(['mj_imagine', 'mj_variation', 'mj_reroll', 'mj_blend', 'mj_upscale', 'mj_describe', 'mj_uploads']);
    expect(modelsForType(5, undefined)).toHaveLength(16);
    expect(modelsForType(36, { 36: ['x'] })).toEqual(['suno_music', 'suno_lyrics']);
    expect(modelsForType(1, { 1: ['gpt-4o'] })).toEqual(['gpt-4o']);
    expect(modelsForType(1, undefined)).toEqual([]);
  });

  it('split a key field into one key per line, but keep a JSON credential whole', () => {
    expect(splitChannelKeys(1, ' a \n\n b \n')).toEqual(['a', 'b']);
    expect(splitChannelKeys(41, '{\n "type": "service_account"\n}')).toEqual(['{\n "type": "service_account"\n}']);
    expect(splitChannelKeys(41, '  ')).toEqual([]);
  });
});
