import { aiproxyOverview, creditGrants, openRouterCredits, siliconFlowUserInfo } from '../balance.js';
import { OpenAIWireAdapter, type OpenAIVendor } from '../openai-base.js';
import type { RelayMode } from '../types.js';

const TEXT: RelayMode[] = ['chat', 'completions', 'embeddings'];
const CHAT: RelayMode[] = ['chat'];

/**
 * OpenAI-wire vendors: declarative entries on the shared base (reference §11 and
 * providers-international §8). `streamOptions` only where the vendor documents
 * `stream_options.include_usage`; elsewhere the field is removed and usage is counted if absent.
 */
export const VENDORS: OpenAIVendor[] = [
  { slug: 'openai-max', types: [6] },
  { slug: 'ohmygpt', types: [7] },
  { slug: 'ails', types: [9] },
  // AIProxy's account API lives on aiproxy.io (its relay on api.aiproxy.io), keyed by `Api-Key`.
  { slug: 'aiproxy', types: [10], balance: aiproxyOverview('https://aiproxy.io') },
  { slug: 'api2gpt', types: [12], balance: creditGrants('https://api.api2gpt.com', 'total_remaining') },
  { slug: 'aigc2d', types: [13], balance: creditGrants('https://api.aigc2d.com', 'total_available') },
  { slug: 'ai360', types: [19], modes: TEXT, models: ['360gpt-turbo', '360gpt-pro', '360GPT_S2_V9', 'embedding-bert-512-v1'] },
  { slug: 'openrouter', types: [20], modes: TEXT, streamOptions: true, balance: openRouterCredits('https://openrouter.ai/api') },
  { slug: 'fastgpt', types: [22], modes: CHAT },
  { slug: 'moonshot', types: [25], modes: TEXT, models: ['moonshot-v1-8k', 'moonshot-v1-32k', 'moonshot-v1-128k'] },
  {
    slug: 'perplexity',
    types: [27],
    pathStyle: 'root',
    modes: CHAT,
    models: ['llama-3.1-sonar-small-128k-online', 'llama-3.1-sonar-large-128k-online', 'llama-3.1-sonar-huge-128k-online'],
  },
  { slug: 'lingyiwanwu', types: [31], modes: CHAT, models: ['yi-large', 'yi-medium', 'yi-lightning', 'yi-vision'] },
  {
    slug: 'minimax',
    types: [35],
    modes: CHAT,
    paths: { chat: '/v1/text/chatcompletion_v2' },
    models: ['abab6.5s-chat', 'abab6.5-chat', 'abab5.5-chat'],
  },
  {
    slug: 'siliconflow',
    types: [40],
    modes: ['chat', 'completions', 'embeddings', 'images', 'speech', 'transcriptions', 'rerank'],
    streamOptions: true,
    balance: siliconFlowUserInfo('https://api.siliconflow.cn'),
    models: ['deepseek-ai/DeepSeek-V2.5', 'Qwen/Qwen2.5-72B-Instruct', 'BAAI/bge-m3', 'BAAI/bge-reranker-v2-m3'],
  },
  // Jina (providers-international §8.3): OpenAI-shaped embeddings and the shared rerank shape; errors `{"detail"}`.
  {
    slug: 'jina',
    types: [38],
    modes: ['embeddings', 'rerank'],
    models: ['jina-embeddings-v3', 'jina-embeddings-v2-base-en', 'jina-clip-v2', 'jina-reranker-v2-base-multilingual', 'jina-reranker-m0', 'jina-colbert-v2'],
  },
  // Mistral sends usage in the last chunk unasked and rejects unknown fields with 422.
  { slug: 'mistral', types: [42], modes: ['chat', 'embeddings'], models: ['mistral-large-latest', 'mistral-small-latest', 'open-mistral-nemo', 'codestral-latest', 'mistral-embed'] },
  { slug: 'deepseek', types: [43], pathStyle: 'root', modes: ['chat', 'completions'], streamOptions: true, models: ['deepseek-chat', 'deepseek-reasoner'] },
];

export const adapters = VENDORS.map((v) => new OpenAIWireAdapter(v));
