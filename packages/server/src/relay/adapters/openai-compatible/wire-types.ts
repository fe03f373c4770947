/**
 * Where an OpenAI-wire vendor's documented body differs from OpenAI's own types (the `openai`
 * SDK's, which every other fixture of this folder uses): each type is OpenAI's plus the vendor's
 * documented extra fields, named with its doc page.
 */
import type OpenAI from 'openai';

type Chat = OpenAI.ChatCompletion;
type Chunk = OpenAI.ChatCompletionChunk;
type ChatChoice = OpenAI.ChatCompletion.Choice;
type ChunkChoice = OpenAI.ChatCompletionChunk.Choice;

/**
 * DeepSeek (api-docs.deepseek.com/api/create-chat-completion, "usage"; /guides/kv_cache and
 * /guides/reasoning_model): cache hits and misses beside OpenAI's usage, `reasoning_content`
 * beside the answer of deepseek-reasoner.
 */
export interface DeepSeekUsage extends OpenAI.CompletionUsage {
  prompt_cache_hit_tokens: number;
  prompt_cache_miss_tokens: number;
}
export type DeepSeekChatCompletion = Omit<Chat, 'usage' | 'choices'> & {
  usage: DeepSeekUsage;
  choices: Array<Omit<ChatChoice, 'message'> & { message: ChatChoice['message'] & { reasoning_content?: string | null } }>;
};
export type DeepSeekChatCompletionChunk = Omit<Chunk, 'usage' | 'choices'> & {
  usage?: DeepSeekUsage | null;
  choices: Array<Omit<ChunkChoice, 'delta'> & { delta: ChunkChoice['delta'] & { reasoning_content?: string | null } }>;
};

/**
 * MiniMax ChatCompletion v2 (platform.minimaxi.com/document/ChatCompletion v2, "返回参数" and the
 * error-code table): sensitivity flags and `base_resp` beside OpenAI's fields; a failure is HTTP
 * 200 with `base_resp.status_code ≠ 0` and the rest empty.
 */
export interface MiniMaxBaseResp {
  status_code: number;
  status_msg: string;
}
interface MiniMaxFlags {
  input_sensitive: boolean;
  output_sensitive: boolean;
  input_sensitive_type?: number;
  output_sensitive_type?: number;
  output_sensitive_int?: number;
  base_resp: MiniMaxBaseResp;
}
export type MiniMaxChatCompletion = Omit<Chat, 'usage' | 'choices'> &
  MiniMaxFlags & {
    usage: OpenAI.CompletionUsage & { total_characters?: number };
    choices: Array<Omit<ChatChoice, 'message' | 'logprobs'> & { message: Omit<ChatChoice['message'], 'refusal'> & { name?: string; audio_content?: string }; logprobs?: null }>;
  };
/** A stream's frames: delta chunks, then a closing frame that repeats the whole message with the usage. */
export type MiniMaxStreamFrame =
  | (Omit<Chunk, 'usage'> & Partial<MiniMaxFlags> & { usage?: null })
  | (Omit<MiniMaxChatCompletion, 'object'> & { object: 'chat.completion' });
export interface MiniMaxFailure extends MiniMaxFlags {
  id: string;
  choices: null;
  created: number;
  model: string;
  object: string;
  usage: null;
}

/**
 * Moonshot (platform.moonshot.cn/docs/api/chat, "流式输出"): the last chunk of a stream carries
 * its usage inside the finishing choice.
 */
export type MoonshotChatCompletionChunk = Omit<Chunk, 'choices'> & { choices: Array<ChunkChoice & { usage?: OpenAI.CompletionUsage }> };

/** Mistral (docs.mistral.ai/api): a field it does not know is refused 422 with FastAPI's validation detail. */
export interface MistralValidationError {
  object?: 'error';
  message?: { detail: Array<{ type: string; loc: Array<string | number>; msg: string; input: unknown }> } | string;
  type: string;
  param: string | null;
  code: string | null;
}

/** Jina Reranker (jina.ai/reranker, "API"): `POST /v1/rerank`. */
export interface JinaRerankRequest {
  model: string;
  query: string;
  documents: Array<string | { text: string }>;
  top_n?: number;
  return_documents?: boolean;
}
export interface JinaRerankResponse {
  model: string;
  usage: { total_tokens: number };
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
}
/** Jina's errors are FastAPI's `{"detail": …}`. */
export interface JinaError {
  detail: string;
}
