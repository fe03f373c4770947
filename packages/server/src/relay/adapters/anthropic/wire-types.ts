import type Anthropic from '@anthropic-ai/sdk';

/**
 * What Anthropic documents but the SDK's types (@anthropic-ai/sdk) leave out; everything else in
 * fixtures/ is typed by the SDK itself.
 */

/** A `ping` event, which may appear anywhere in a stream (docs.claude.com/en/docs/build-with-claude/streaming, "Ping events"). */
export interface PingEvent {
  type: 'ping';
}

/** An `error` event after HTTP 200 (same page, "Error events"): the error body without `request_id`. */
export type StreamErrorEvent = Omit<Anthropic.ErrorResponse, 'request_id'>;

/** Every event a Messages stream carries: the SDK's six plus ping and error. */
export type MessagesStreamEvent = Anthropic.Messages.RawMessageStreamEvent | PingEvent | StreamErrorEvent;

/** 413 `request_too_large` (docs.claude.com/en/api/errors, "HTTP errors"), a type the SDK's ErrorObject does not list. */
export interface RequestTooLargeResponse {
  type: 'error';
  error: { type: 'request_too_large'; message: string };
  request_id: string | null;
}
