/**
 * Baidu ERNIE (Wenxin workshop v1) as documented (no Baidu SDK here): "ERNIE-3.5-8K" chat API
 * (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/flzjjlya6: request body, "响应参数", the stream's
 * `data:` frames, "错误码"), the Embedding-V1 API, and the OAuth client-credentials token
 * (https://cloud.baidu.com/doc/WENXINWORKSHOP/s/Ilkkrb0i5). Fixtures in `fixtures/` are checked
 * against these; the converters in formats/baidu-ernie read these shapes.
 */

export interface BaiduMessage {
  role: 'user' | 'assistant';
  content: string;
}

/** The chat request body ("请求参数"). */
export interface BaiduChatRequest {
  messages: BaiduMessage[];
  system?: string;
  /** (0, 1]. */
  temperature?: number;
  /** [0, 1]. */
  top_p?: number;
  /** [1, 2]. */
  penalty_score?: number;
  /** [2, 2048]. */
  max_output_tokens?: number;
  stop?: string[];
  user_id?: string;
  stream?: boolean;
  disable_search?: boolean;
  enable_citation?: boolean;
}

export interface BaiduUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** `normal` is a natural end; newer replies add it, older ones leave it out. */
export type BaiduFinishReason = 'normal' | 'stop' | 'length' | 'content_filter' | 'function_call';

/** A non-stream chat answer ("响应参数"). */
export interface BaiduChatResponse {
  id: string;
  object: 'chat.completion';
  created: number;
  result: string;
  is_truncated: boolean;
  need_clear_history: boolean;
  finish_reason?: BaiduFinishReason;
  usage: BaiduUsage;
}

/** One `data:` frame of a stream: the answer's fields plus the sentence number and `is_end`. */
export interface BaiduStreamFrame extends BaiduChatResponse {
  sentence_id: number;
  is_end: boolean;
}

/** An error: HTTP 200 with this body (also on streams, where it comes without the `data:` prefix). */
export interface BaiduError {
  error_code: number;
  error_msg: string;
}

/** Embedding-V1 request. */
export interface BaiduEmbeddingsRequest {
  input: string[];
  user_id?: string;
}

export interface BaiduEmbeddingsResponse {
  id: string;
  object: 'embedding_list';
  created: number;
  data: Array<{ object: 'embedding'; embedding: number[]; index: number }>;
  usage: { prompt_tokens: number; total_tokens: number };
}

/** `POST /oauth/2.0/token?grant_type=client_credentials&client_id=…&client_secret=…` answer. */
export interface BaiduTokenResponse {
  refresh_token: string;
  expires_in: number;
  session_key: string;
  access_token: string;
  scope: string;
  session_secret: string;
}

/** The token endpoint's refusal (HTTP 401). */
export interface BaiduTokenError {
  error: string;
  error_description: string;
}
