import type Anthropic from '@anthropic-ai/sdk';

/**
 * What Vertex AI documents for Claude on `publishers/anthropic` (`:rawPredict`, `:streamRawPredict`;
 * cloud.google.com/vertex-ai/generative-ai/docs/partner-models/claude/use-claude,
 * docs.claude.com/en/api/claude-on-vertex-ai) and for the OAuth token exchange of a service
 * account (developers.google.com/identity/protocols/oauth2/service-account, RFC 6749 §5). Gemini
 * on `publishers/google` is typed by gemini/wire-types.ts: Vertex sends the same JSON.
 * The Claude answers are written out here because the SDK's `Message` requires fields of the
 * first-party API (container, diagnostics, stop_details, …) that Vertex's answers do not carry.
 */

/** The rawPredict body: Messages parameters without `model` (the path names it), `anthropic_version` in place of the header. */
export type VertexClaudeRequest = Omit<Anthropic.Messages.MessageCreateParamsNonStreaming, 'model' | 'stream'> & {
  anthropic_version: 'vertex-2023-10-16';
  /** `true` on `:streamRawPredict`, which refuses a body without it. */
  stream?: boolean;
  /** Sampling parameters Vertex documents for Claude; the SDK's current parameter type no longer lists them all. */
  temperature?: number;
  top_p?: number;
  top_k?: number;
};

/** A content block of a Claude answer on Vertex. */
export type VertexClaudeContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'redacted_thinking'; data: string };

/** Token usage; Vertex sends the cache counts (0 without prompt caching). */
export interface VertexClaudeUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number;
  cache_read_input_tokens?: number;
}

/** The rawPredict answer: an Anthropic message whose id starts `msg_vrtx_` and whose model is the dashed name. */
export interface VertexClaudeMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: VertexClaudeContentBlock[];
  stop_reason: Anthropic.Messages.StopReason | null;
  stop_sequence: string | null;
  usage: VertexClaudeUsage;
}

/** One `data:` payload of a streamRawPredict SSE body (each comes with `event: <type>`). */
export type VertexClaudeStreamEvent =
  | { type: 'message_start'; message: VertexClaudeMessage }
  | { type: 'ping' }
  | { type: 'content_block_start'; index: number; content_block: VertexClaudeContentBlock }
  | Anthropic.Messages.RawContentBlockDeltaEvent
  | Anthropic.Messages.RawContentBlockStopEvent
  | { type: 'message_delta'; delta: { stop_reason: Anthropic.Messages.StopReason | null; stop_sequence: string | null }; usage: { output_tokens: number } }
  | { type: 'message_stop' }
  | { type: 'error'; error: { type: string; message: string } };

/** An error the Claude model itself raises through rawPredict: Anthropic's envelope, without a request_id. */
export interface VertexClaudeError {
  type: 'error';
  error: { type: string; message: string };
}

/**
 * A Google error as Vertex answers some Claude calls: google.rpc.Status as JSON (the shape
 * gemini/wire-types.ts `GoogleErrorJSON` types, which the plain error fixtures use), inside a
 * one-element JSON array. Written out here: a provider folder imports no other folder's sources.
 */
export type VertexWrappedGoogleError = [{ error: { code: number; message: string; status: string; details?: Array<{ '@type': string; [field: string]: unknown }> } }];

/** The token endpoint's answer to the JWT-bearer grant. */
export interface OAuthTokenResponse {
  access_token: string;
  expires_in: number;
  token_type: 'Bearer';
}

/** The token endpoint's refusal (RFC 6749 §5.2): `invalid_grant` for a bad or expired assertion. */
export interface OAuthTokenError {
  error: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope';
  error_description?: string;
}
