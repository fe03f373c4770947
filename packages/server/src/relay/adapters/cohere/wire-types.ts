/**
 * Cohere's wire format as documented (no Cohere SDK is installed here): API v2 Chat
 * (docs.cohere.com/reference/chat and /reference/chat-stream, `POST /v2/chat`), Embed v2
 * (/reference/embed, `POST /v2/embed`), Rerank v1 (/reference/rerank-v1, `POST /v1/rerank`) and the
 * error body (/reference/errors). Field names follow cohere-ai/cohere-typescript's serialization
 * types (`src/serialization/resources/v2/*`). Fixtures in `fixtures/` are checked against these.
 */

export interface CohereTextContent {
  type: 'text';
  text: string;
}
export interface CohereThinkingContent {
  type: 'thinking';
  thinking: string;
}
export interface CohereImageUrlContent {
  type: 'image_url';
  image_url: { url: string; detail?: 'auto' | 'low' | 'high' };
}
export interface CohereDocumentContent {
  type: 'document';
  document: { id?: string; data: string | Record<string, unknown> };
}

/** A tool call; in stream deltas every field is optional (the SDK's `ToolCallV2`). */
export interface CohereToolCall {
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface CohereCitation {
  start?: number;
  end?: number;
  text?: string;
  sources?: Array<{ type: 'tool' | 'document'; id?: string; tool_output?: Record<string, unknown>; document?: Record<string, unknown> }>;
  type?: 'TEXT_CONTENT' | 'THINKING_CONTENT' | 'PLAN';
}

export type CohereMessage =
  | { role: 'system'; content: string | CohereTextContent[] }
  | { role: 'user'; content: string | Array<CohereTextContent | CohereImageUrlContent | CohereDocumentContent> }
  | { role: 'assistant'; content?: string | Array<CohereTextContent | CohereThinkingContent>; tool_plan?: string; tool_calls?: CohereToolCall[]; citations?: CohereCitation[] }
  | { role: 'tool'; tool_call_id: string; content: string | Array<CohereTextContent | CohereDocumentContent> };

export interface CohereTool {
  type: 'function';
  function: { name: string; description?: string; parameters: Record<string, unknown> };
}

/** `POST /v2/chat` body (docs.cohere.com/reference/chat, "Request"). */
export interface CohereChatRequest {
  model: string;
  messages: CohereMessage[];
  stream?: boolean;
  tools?: CohereTool[];
  strict_tools?: boolean;
  documents?: Array<string | { id?: string; data: Record<string, unknown> }>;
  citation_options?: { mode?: 'FAST' | 'ACCURATE' | 'OFF' };
  response_format?: { type: 'text' } | { type: 'json_object'; json_schema?: Record<string, unknown> };
  safety_mode?: 'CONTEXTUAL' | 'STRICT' | 'OFF';
  max_tokens?: number;
  stop_sequences?: string[];
  temperature?: number;
  seed?: number;
  frequency_penalty?: number;
  presence_penalty?: number;
  k?: number;
  p?: number;
  logprobs?: boolean;
  tool_choice?: 'REQUIRED' | 'NONE';
  thinking?: { type: 'enabled' | 'disabled'; token_budget?: number };
}

export type CohereFinishReason = 'COMPLETE' | 'STOP_SEQUENCE' | 'MAX_TOKENS' | 'TOOL_CALL' | 'ERROR' | 'TIMEOUT';

/** `usage`: what Cohere bills (`billed_units`), the raw token counts (`tokens`, with its own preamble) and prompt-cache hits. */
export interface CohereUsage {
  billed_units?: { input_tokens?: number; output_tokens?: number; search_units?: number; classifications?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  cached_tokens?: number;
}

export interface CohereAssistantResponse {
  role: 'assistant';
  tool_calls?: CohereToolCall[];
  tool_plan?: string;
  content?: Array<CohereTextContent | CohereThinkingContent>;
  citations?: CohereCitation[];
}

/** `POST /v2/chat` answer (docs.cohere.com/reference/chat, "Response"). */
export interface CohereChatResponse {
  id: string;
  finish_reason: CohereFinishReason;
  message: CohereAssistantResponse;
  usage?: CohereUsage;
  logprobs?: Array<{ token_ids: number[]; text?: string; logprobs?: number[] }>;
}

/** One SSE event of a v2 chat stream (docs.cohere.com/reference/chat-stream, "Response"): the `type` names the event. */
export type CohereStreamEvent =
  | { type: 'message-start'; id?: string; delta?: { message?: { role?: 'assistant'; content?: unknown[]; tool_plan?: string; tool_calls?: unknown[]; citations?: unknown[] } } }
  | { type: 'content-start'; index?: number; delta?: { message?: { content?: { type?: 'text' | 'thinking'; text?: string; thinking?: string } } } }
  | { type: 'content-delta'; index?: number; delta?: { message?: { content?: { text?: string; thinking?: string } } }; logprobs?: { token_ids: number[]; text?: string; logprobs?: number[] } }
  | { type: 'content-end'; index?: number }
  | { type: 'tool-plan-delta'; delta?: { message?: { tool_plan?: string } } }
  | { type: 'tool-call-start'; index?: number; delta?: { message?: { tool_calls?: CohereToolCall } } }
  | { type: 'tool-call-delta'; index?: number; delta?: { message?: { tool_calls?: CohereToolCall } } }
  | { type: 'tool-call-end'; index?: number }
  | { type: 'citation-start'; index?: number; delta?: { message?: { citations?: CohereCitation } } }
  | { type: 'citation-end'; index?: number }
  | { type: 'message-end'; id?: string; delta?: { error?: string; finish_reason?: CohereFinishReason; usage?: CohereUsage } };

export type CohereEmbedInputType = 'search_document' | 'search_query' | 'classification' | 'clustering' | 'image';
export type CohereEmbeddingType = 'float' | 'int8' | 'uint8' | 'binary' | 'ubinary' | 'base64';

/** `POST /v2/embed` body (docs.cohere.com/reference/embed). */
export interface CohereEmbedRequest {
  model: string;
  texts?: string[];
  images?: string[];
  inputs?: Array<{ content: Array<{ type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } }> }>;
  input_type: CohereEmbedInputType;
  embedding_types?: CohereEmbeddingType[];
  output_dimension?: number;
  max_tokens?: number;
  truncate?: 'NONE' | 'START' | 'END';
}

export interface CohereApiMeta {
  api_version?: { version: string; is_deprecated?: boolean; is_experimental?: boolean };
  billed_units?: { images?: number; input_tokens?: number; output_tokens?: number; search_units?: number; classifications?: number };
  tokens?: { input_tokens?: number; output_tokens?: number };
  warnings?: string[];
}

/** `POST /v2/embed` answer: `embeddings_by_type`, one list per asked type. */
export interface CohereEmbedResponse {
  response_type?: 'embeddings_by_type';
  id: string;
  embeddings: Partial<Record<Exclude<CohereEmbeddingType, 'base64'>, number[][]>> & { base64?: string[] };
  texts?: string[];
  images?: Array<{ width: number; height: number; format: string; bit_depth: number }>;
  meta?: CohereApiMeta;
}

/** `POST /v1/rerank` body (docs.cohere.com/reference/rerank-v1): v1 still takes `return_documents`. */
export interface CohereRerankRequest {
  model: string;
  query: string;
  documents: Array<string | { text: string }>;
  top_n?: number;
  rank_fields?: string[];
  return_documents?: boolean;
  max_chunks_per_doc?: number;
}

export interface CohereRerankResponse {
  id?: string;
  results: Array<{ index: number; relevance_score: number; document?: { text: string } }>;
  meta?: CohereApiMeta;
}

/** Every Cohere error (docs.cohere.com/reference/errors): a JSON body with the message (some add an `id`). */
export interface CohereError {
  id?: string;
  message: string;
}
