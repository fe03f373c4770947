import type Anthropic from '@anthropic-ai/sdk';

/**
 * What Bedrock Runtime documents for Claude on InvokeModel and InvokeModelWithResponseStream
 * (docs.aws.amazon.com/bedrock/latest/userguide/model-parameters-anthropic-claude-messages-request-response.html,
 * docs.aws.amazon.com/bedrock/latest/APIReference/API_runtime_InvokeModel.html, …/API_runtime_ResponseStream.html).
 * The request reuses the Anthropic SDK's parameter types; the answers are written out here because
 * the SDK's `Message` now requires fields of the first-party API (container, diagnostics,
 * citations, service_tier, …) that Bedrock's documented answer does not carry.
 */

/** The InvokeModel body for Claude: Messages parameters without `model` (in the path) and `stream` (the operation says it). */
export type BedrockClaudeRequest = Omit<Anthropic.Messages.MessageCreateParamsNonStreaming, 'model' | 'stream'> & {
  /** Required, in place of the `anthropic-version` header. */
  anthropic_version: 'bedrock-2023-05-31';
  /** Beta features, in the body instead of the `anthropic-beta` header. */
  anthropic_beta?: string[];
  /** Sampling parameters Bedrock documents for Claude; the SDK's current parameter type no longer lists them. */
  temperature?: number;
  top_p?: number;
  top_k?: number;
};

/** A content block of a Claude answer on Bedrock. */
export type BedrockClaudeContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** Token usage; the cache counts appear when prompt caching is available for the model. */
export interface BedrockClaudeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** The InvokeModel answer for Claude. */
export interface BedrockClaudeMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: BedrockClaudeContentBlock[];
  stop_reason: Anthropic.Messages.StopReason | null;
  stop_sequence: string | null;
  usage: BedrockClaudeUsage;
}

/**
 * Bedrock's own counts, added to the last event of a stream (`message_stop`) under
 * `amazon-bedrock-invocationMetrics`; latencies in milliseconds.
 */
export interface BedrockInvocationMetrics {
  inputTokenCount: number;
  outputTokenCount: number;
  invocationLatency: number;
  firstByteLatency: number;
  cacheReadInputTokenCount?: number;
  cacheWriteInputTokenCount?: number;
}

/**
 * One Anthropic stream event, as the base64 `bytes` of an event-stream `chunk` carries it (no SSE
 * framing, no pings).
 */
export type BedrockClaudeStreamEvent =
  | { type: 'message_start'; message: BedrockClaudeMessage }
  | { type: 'content_block_start'; index: number; content_block: BedrockClaudeContentBlock }
  | Anthropic.Messages.RawContentBlockDeltaEvent
  | Anthropic.Messages.RawContentBlockStopEvent
  | { type: 'message_delta'; delta: { stop_reason: Anthropic.Messages.StopReason | null; stop_sequence: string | null }; usage: { output_tokens: number } }
  | { type: 'message_stop'; 'amazon-bedrock-invocationMetrics'?: BedrockInvocationMetrics };

/**
 * An error: the body of a non-2xx answer, and the payload of an event-stream `exception` message.
 * The exception's name is not in the body: it travels in the `x-amzn-ErrorType` header
 * (`<Name>:http://internal.amazon.com/coral/…`), or in the frame's `:exception-type` header.
 */
export interface BedrockError {
  message: string;
}

/** ModelErrorException (424) and a stream's modelStreamErrorException also carry what the model answered. */
export interface BedrockModelError extends BedrockError {
  originalStatusCode?: number;
  originalMessage?: string;
  resourceName?: string;
}

/** What a stream fixture's events are: the decoded chunk events, and the exception payload that may end the stream. */
export type BedrockStreamPayload = BedrockClaudeStreamEvent | BedrockModelError;
