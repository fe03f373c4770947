/**
 * Alibaba DashScope native APIs as documented (no DashScope SDK here): Model Studio "通义千问 API 参考"
 * (https://help.aliyun.com/zh/model-studio/use-qwen-by-calling-api, DashScope section: request
 * `input`/`parameters`, the `output.choices` answer, SSE frames with `incremental_output`, `usage`
 * with `prompt_tokens_details` / `output_tokens_details`), "通用文本向量" text-embedding
 * (https://help.aliyun.com/zh/model-studio/text-embedding-synchronous-api) and the error codes page
 * (https://help.aliyun.com/zh/model-studio/error-code). The image task's types live with images.ts.
 */

export interface DashScopeToolCall {
  id: string;
  type: 'function';
  index?: number;
  function: { name: string; arguments: string };
}

export interface DashScopeMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** The thinking text of a reasoning model (Qwen3 with `enable_thinking`, QwQ). */
  reasoning_content?: string;
  tool_calls?: DashScopeToolCall[];
  tool_call_id?: string;
  name?: string;
}

export interface DashScopeTool {
  type: 'function';
  function: { name: string; description?: string; parameters?: Record<string, unknown> };
}

/** `POST /api/v1/services/aigc/text-generation/generation`. */
export interface DashScopeChatRequest {
  model: string;
  input: { messages: DashScopeMessage[] };
  parameters?: {
    result_format?: 'message' | 'text';
    incremental_output?: boolean;
    enable_search?: boolean;
    enable_thinking?: boolean;
    seed?: number;
    max_tokens?: number;
    temperature?: number;
    top_p?: number;
    top_k?: number;
    presence_penalty?: number;
    repetition_penalty?: number;
    stop?: string[];
    tools?: DashScopeTool[];
    tool_choice?: 'auto' | 'none' | { type: 'function'; function: { name: string } };
  };
}

export interface DashScopeUsage {
  input_tokens: number;
  output_tokens: number;
  total_tokens: number;
  /** Prompt tokens served from the context cache. */
  prompt_tokens_details?: { cached_tokens: number };
  /** Thinking tokens, counted inside output_tokens. */
  output_tokens_details?: { reasoning_tokens: number };
}

/** `finish_reason` is the string "null" on every frame but the last of a stream. */
export type DashScopeFinishReason = 'null' | 'stop' | 'length' | 'tool_calls';

/** A text-generation answer (`result_format:"message"`), and each SSE frame's `data`. */
export interface DashScopeChatResponse {
  status_code?: number;
  request_id: string;
  code?: string;
  message?: string;
  output: { choices: Array<{ finish_reason: DashScopeFinishReason; message: DashScopeMessage }> };
  usage: DashScopeUsage;
}

/** An error (4xx/5xx; on a stream an `event:error` frame's data). */
export interface DashScopeError {
  code: string;
  message: string;
  request_id: string;
}

/** `POST /api/v1/services/embeddings/text-embedding/text-embedding`. */
export interface DashScopeEmbeddingsRequest {
  model: string;
  input: { texts: string[] };
  parameters?: { text_type?: 'query' | 'document'; dimension?: number };
}

export interface DashScopeEmbeddingsResponse {
  status_code?: number;
  request_id: string;
  code?: string;
  message?: string;
  output: { embeddings: Array<{ text_index: number; embedding: number[] }> };
  usage: { total_tokens: number };
}
