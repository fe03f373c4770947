/**
 * Zhipu's APIs as documented (no Zhipu SDK here).
 * - v3 model API ("ChatGLM API 文档" v3, https://open.bigmodel.cn/dev/api#sdk_invoke, invoke and
 *   sse-invoke): the `prompt` request, the `{code,msg,success,data}` answer, the SSE events
 *   `add|finish|error|interrupted` with usage in the finish event's `meta:` line.
 * - v4 (https://open.bigmodel.cn/dev/api/normal-model/glm-4, "请求参数"/"响应参数"/"流式输出"; error
 *   codes at https://open.bigmodel.cn/dev/api/error-code/service-error): OpenAI-shaped, so the caller
 *   side is `openai`'s types; these are its differences: Zhipu-only request fields, `request_id`,
 *   `reasoning_content`, no `object`/`logprobs`/`refusal`, and string error codes.
 */
import type { OpenAI } from 'openai';

// ---- v3 ----

export interface ZhipuV3Message {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** `POST /api/paas/v3/model-api/{model}/invoke` (or `sse-invoke`). */
export interface ZhipuV3Request {
  prompt: ZhipuV3Message[];
  temperature?: number;
  /** (0, 1). */
  top_p?: number;
  request_id?: string;
  /** sse-invoke: each `add` event carries only the new text. */
  incremental?: boolean;
}

export interface ZhipuV3Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** A successful answer; `content` comes wrapped in literal double quotes. */
export interface ZhipuV3Response {
  code: 200;
  msg: string;
  success: true;
  data: {
    request_id: string;
    task_id: string;
    task_status: 'SUCCESS' | 'PROCESSING' | 'FAIL';
    choices: ZhipuV3Message[];
    usage: ZhipuV3Usage;
  };
}

/** A failure (HTTP 200 or 4xx): a numeric business code and `success: false`. */
export interface ZhipuV3Error {
  code: number;
  msg: string;
  success: false;
}

/** The finish event's `meta:` line (JSON). */
export interface ZhipuV3Meta {
  task_status: 'SUCCESS' | 'FAIL';
  usage: ZhipuV3Usage;
  task_id: string;
  request_id: string;
}

/**
 * One sse-invoke event, as its lines: `event:<event>`, `id:<id>`, `data:<data>` (plain text, not
 * JSON), and for `finish` a `meta:<json>` line. A fixture lists these; the bytes are built from them.
 */
export interface ZhipuV3StreamEvent {
  event: 'add' | 'finish' | 'error' | 'interrupted';
  id: string;
  data: string;
  meta?: ZhipuV3Meta;
}

// ---- v4 ----

/** `POST /api/paas/v4/chat/completions`: OpenAI's body reduced to what v4 documents, plus its own fields. */
export type ZhipuV4ChatRequest = Pick<OpenAI.ChatCompletionCreateParams, 'model' | 'messages' | 'stream' | 'temperature' | 'top_p' | 'max_tokens' | 'stop' | 'tools' | 'tool_choice' | 'response_format'> & {
  do_sample?: boolean;
  request_id?: string;
  user_id?: string;
};

export interface ZhipuV4Usage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Prompt tokens served from Zhipu's context cache. */
  prompt_tokens_details?: { cached_tokens: number };
}

export interface ZhipuV4AssistantMessage {
  role: 'assistant';
  content: string | null;
  /** GLM-4.5+ thinking text. */
  reasoning_content?: string;
  tool_calls?: OpenAI.ChatCompletionMessageFunctionToolCall[];
}

/** A v4 answer ("响应参数"): OpenAI's shape without `object`, `logprobs` or `refusal`, plus `request_id`. */
export interface ZhipuV4ChatResponse {
  id: string;
  request_id: string;
  created: number;
  model: string;
  choices: Array<{ index: number; finish_reason: 'stop' | 'length' | 'tool_calls' | 'sensitive' | 'network_error'; message: ZhipuV4AssistantMessage }>;
  usage: ZhipuV4Usage;
}

/** A v4 stream chunk (`data: {…}`); the last has `finish_reason` and `usage`; then `data: [DONE]`. */
export interface ZhipuV4ChatChunk {
  id: string;
  created: number;
  model: string;
  choices: Array<{ index: number; finish_reason?: 'stop' | 'length' | 'tool_calls' | 'sensitive' | 'network_error'; delta: { role?: 'assistant'; content?: string; reasoning_content?: string; tool_calls?: OpenAI.ChatCompletionChunk.Choice.Delta.ToolCall[] } }>;
  usage?: ZhipuV4Usage;
}

/** A v4 error (4xx/5xx): `code` is a numeric string (1002 bad token, 1211 unknown model, 1113 arrears, 1302 rate limit). */
export interface ZhipuV4Error {
  error: { code: string; message: string };
}

/** `POST /api/paas/v4/embeddings` answer. */
export interface ZhipuV4EmbeddingsResponse {
  model: string;
  object: 'list';
  data: Array<{ index: number; object: 'embedding'; embedding: number[] }>;
  usage: ZhipuV4Usage;
}
