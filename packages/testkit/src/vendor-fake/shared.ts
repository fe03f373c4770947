import type { IncomingMessage, ServerResponse } from 'node:http';
import { words } from '../rerank-scores.js';

/** The answer every vendor fake gives: five words, five completion tokens. */
export const FAKE_VENDOR_WORDS = ['Hello', 'from', 'the', 'fake', 'vendor'];
export const FAKE_VENDOR_TEXT = FAKE_VENDOR_WORDS.join(' ');
/** What a reasoning model thinks before it answers: four reasoning tokens. */
export const FAKE_REASONING_WORDS = ['Let', 'me', 'think', 'first'];
export const FAKE_REASONING_TEXT = FAKE_REASONING_WORDS.join(' ');

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Prompt tokens the vendor fakes bill: one per word of every message's text. */
export function vendorPromptTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  let n = 0;
  for (const m of msgs) {
    if (!isRecord(m)) continue;
    if (typeof m.content === 'string') n += words(m.content).length;
    else if (Array.isArray(m.content)) for (const p of m.content) if (isRecord(p) && typeof p.text === 'string') n += words(p.text).length;
  }
  return n;
}

/** An error the fake answers in its vendor's own shape. */
export class VendorError extends Error {
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
  ) {
    super(JSON.stringify(body));
  }
}

/** OpenAI's error object, as the OpenAI-compatible vendors send it. */
export function openAIError(status: number, message: string, type: string, code: string | null = null): VendorError {
  return new VendorError(status, { error: { message, type, param: null, code } });
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export function startSse(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
}

/** One SSE frame (`data: ` with the space, which strict readers require), optionally named. */
export function frame(data: unknown, event?: string): string {
  const text = typeof data === 'string' ? data : JSON.stringify(data);
  return `${event ? `event: ${event}\n` : ''}data: ${text}\n\n`;
}

/** The Bearer key of a request, or undefined. */
export function bearer(req: IncomingMessage): string | undefined {
  const m = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
  return m?.[1];
}

/** The request's messages must be a non-empty list with a model: what every chat vendor checks first. */
export function chatBody(body: unknown): Record<string, unknown> {
  if (!isRecord(body)) throw openAIError(400, 'the request body must be a JSON object', 'invalid_request_error');
  if (typeof body.model !== 'string' || !body.model) throw openAIError(400, 'model is required', 'invalid_request_error');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw openAIError(400, 'messages must be a non-empty list', 'invalid_request_error');
  return body;
}
