import { relayLangFromHeader } from '@modelgate/shared';
import type { FastifyRequest } from 'fastify';
import { countChatPrompt } from './billing/token-counter.js';
import { messagesPromptAsChat } from './adapters/anthropic/formats/anthropic-messages/count.js';
import { validateMessagesBody } from './adapters/anthropic/formats/anthropic-messages/validate.js';
import { RelayError } from './relay-error.js';
import { assertRelayJsonShape } from './request-parse.js';
import { assertModelAllowed, type RelayAuth } from './token-auth.js';

/**
 * `POST /v1/messages/count_tokens`: the prompt's tokens, counted locally with the relay's own
 * counter (the figure a reservation is sized with). Nothing reaches an upstream, so nothing is
 * reserved, charged or logged.
 */
export async function countMessagesTokens(req: FastifyRequest, auth: RelayAuth): Promise<{ input_tokens: number }> {
  const lang = relayLangFromHeader(req.headers['accept-language']);
  const raw = Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0);
  assertRelayJsonShape(raw, lang);
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw new RelayError(400, 'invalid_request_error', 'invalid_request_error', 'the request body must be a JSON object');
  const b = body as Record<string, unknown>;
  validateMessagesBody(lang, b, { countTokens: true });
  assertModelAllowed(auth, b.model as string, lang);
  return { input_tokens: await countChatPrompt(b.model as string, messagesPromptAsChat(b)) };
}
