/**
 * Tencent Hunyuan ChatCompletions (API version 2023-09-01) as documented (no Tencent SDK here):
 * https://cloud.tencent.com/document/api/1729/105701 ("输入参数", "输出参数", the stream's `data:`
 * frames, "错误码"), with the data structures of https://cloud.tencent.com/document/api/1729/101838
 * (Message, Choice, Delta, Usage) and the common error of https://cloud.tencent.com/document/api/1729/101835.
 */

export interface HunyuanMessage {
  Role: 'system' | 'user' | 'assistant' | 'tool';
  Content: string;
}

/** The request body (`X-TC-Action: ChatCompletions`). */
export interface HunyuanChatRequest {
  Model: string;
  Messages: HunyuanMessage[];
  Stream?: boolean;
  StreamModeration?: boolean;
  TopP?: number;
  Temperature?: number;
  EnableEnhancement?: boolean;
}

export interface HunyuanUsage {
  PromptTokens: number;
  CompletionTokens: number;
  TotalTokens: number;
}

/** `stop`, `sensitive` (moderated), or empty while a stream goes on. */
export type HunyuanFinishReason = '' | 'stop' | 'sensitive' | 'tool_calls';

/** `Response` of a non-stream answer. */
export interface HunyuanChatResponse {
  Response: {
    Id: string;
    Note: string;
    Created: number;
    Choices: Array<{ FinishReason: HunyuanFinishReason; Message: HunyuanMessage }>;
    Usage: HunyuanUsage;
    RequestId: string;
  };
}

/** One stream frame (`data: {…}`): not wrapped in `Response`; `Usage` is cumulative; no `[DONE]`. */
export interface HunyuanStreamFrame {
  Id: string;
  Note: string;
  Created: number;
  Choices: Array<{ FinishReason: HunyuanFinishReason; Delta: HunyuanMessage }>;
  Usage: HunyuanUsage;
}

/** Every failure, stream or not: HTTP 200 with `Response.Error` (`Code` a dotted string). */
export interface HunyuanError {
  Response: {
    Error: { Code: string; Message: string };
    RequestId: string;
  };
}
