import { ChannelType } from '@modelgate/shared';
import { aiproxyOverview, creditGrants, deepseekBalance, moonshotBalance, openRouterCredits, siliconFlowUserInfo } from '../balance.js';
import type { OpenAIVendor } from '../openai-base.js';
import type { RelayMode } from '../types.js';
import { CompatibleAdapter } from '../stream-usage.js';
import { DeepSeekAdapter, FastGPTAdapter, MiniMaxAdapter, MoonshotAdapter } from './vendors.js';

const TEXT: RelayMode[] = ['chat', 'completions', 'embeddings'];
const CHAT: RelayMode[] = ['chat'];

/**
 * OpenAI-wire vendors: declarative entries on the shared base (reference §11 and
 * providers-international §8). `streamOptions` (ask streams for `stream_options.include_usage`)
 * where the vendor accepts it: the OpenAI resellers that forward OpenAI's API, and vendors that
 * document it. Elsewhere the field is removed: Mistral refuses unknown fields (and, like
 * Perplexity, MiniMax and Moonshot, reports usage unasked); the rest are counted locally. A
 * channel's `stream_usage` setting overrides either way (../stream-usage.ts, docs/providers.md).
 */
export const VENDORS: OpenAIVendor[] = [
  { slug: 'openai-max', types: [ChannelType.OpenAIMax], streamOptions: true },
  { slug: 'ohmygpt', types: [ChannelType.OhMyGPT], streamOptions: true },
  { slug: 'ails', types: [ChannelType.AILS], streamOptions: true },
  // AIProxy's account API lives on aiproxy.io (its relay on api.aiproxy.io), keyed by `Api-Key`.
  { slug: 'aiproxy', types: [ChannelType.AIProxy], streamOptions: true, balance: aiproxyOverview('https://aiproxy.io') },
  { slug: 'api2gpt', types: [ChannelType.API2GPT], streamOptions: true, balance: creditGrants('https://api.api2gpt.com', 'total_remaining') },
  { slug: 'aigc2d', types: [ChannelType.AIGC2D], streamOptions: true, balance: creditGrants('https://api.aigc2d.com', 'total_available') },
  // 360: chat and embeddings on the OpenAI paths (providers-china §6).
  { slug: 'ai360', types: [ChannelType.Ai360], modes: ['chat', 'embeddings'], models: ['360gpt-turbo', '360gpt-pro', '360gpt2-pro', '360GPT_S2_V9', 'embedding-bert-512-v1', 'embedding_s1_v1'] },
  { slug: 'openrouter', types: [ChannelType.OpenRouter], modes: TEXT, streamOptions: true, balance: openRouterCredits('https://openrouter.ai/api') },
  { slug: 'fastgpt', types: [ChannelType.FastGPT], modes: CHAT },
  { slug: 'moonshot', types: [ChannelType.Moonshot], modes: TEXT, balance: moonshotBalance('https://api.moonshot.cn'), models: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'] },
  {
    slug: 'perplexity',
    types: [ChannelType.Perplexity],
    pathStyle: 'root',
    modes: CHAT,
    models: ['llama-3.1-sonar-small-128k-online', 'llama-3.1-sonar-large-128k-online', 'llama-3.1-sonar-huge-128k-online'],
  },
  { slug: 'lingyiwanwu', types: [ChannelType.LingYiWanWu], modes: CHAT, models: ['yi-lightning', 'yi-large', 'yi-medium', 'yi-vision', 'yi-spark', 'yi-large-turbo', 'yi-large-rag', 'yi-medium-200k'] },
  {
    slug: 'minimax',
    types: [ChannelType.MiniMax],
    modes: CHAT,
    paths: { chat: '/v1/text/chatcompletion_v2' },
    models: ['abab6.5s-chat', 'abab6.5-chat', 'abab5.5-chat'],
  },
  {
    slug: 'siliconflow',
    types: [ChannelType.SiliconFlow],
    modes: ['chat', 'completions', 'embeddings', 'images', 'speech', 'transcriptions', 'rerank'],
    streamOptions: true,
    balance: siliconFlowUserInfo('https://api.siliconflow.cn'),
    models: ['deepseek-ai/DeepSeek-V2.5', 'Qwen/Qwen2.5-72B-Instruct', 'BAAI/bge-m3', 'BAAI/bge-reranker-v2-m3'],
  },
  // Jina (providers-international §8.3): OpenAI-shaped embeddings and the shared rerank shape; errors `{"detail"}`.
  {
    slug: 'jina',
    types: [ChannelType.Jina],
    modes: ['embeddings', 'rerank'],
    models: ['jina-embeddings-v3', 'jina-embeddings-v2-base-en', 'jina-clip-v2', 'jina-reranker-v2-base-multilingual', 'jina-reranker-m0', 'jina-colbert-v2'],
  },
  // Mistral sends usage in the last chunk unasked and rejects unknown fields with 422.
  { slug: 'mistral', types: [ChannelType.Mistral], modes: ['chat', 'embeddings'], models: ['mistral-large-latest', 'mistral-small-latest', 'open-mistral-nemo', 'codestral-latest', 'mistral-embed'] },
  { slug: 'deepseek', types: [ChannelType.DeepSeek], pathStyle: 'root', modes: ['chat', 'completions'], streamOptions: true, balance: deepseekBalance('https://api.deepseek.com'), models: ['deepseek-chat', 'deepseek-reasoner'] },
];

/** Vendors whose replies differ from OpenAI's (openai-compatible/vendors.ts); the rest are the plain base. */
const SPECIAL: Record<string, typeof CompatibleAdapter> = { minimax: MiniMaxAdapter, moonshot: MoonshotAdapter, deepseek: DeepSeekAdapter, fastgpt: FastGPTAdapter };

export const adapters = VENDORS.map((v) => new (SPECIAL[v.slug] ?? CompatibleAdapter)(v));
