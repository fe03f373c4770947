import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { fakeEmbedding, words } from '../rerank-scores.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** DashScope's compatible-mode error: OpenAI's object plus a top-level `request_id`. */
export class CompatibleError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }

  body(): Record<string, unknown> {
    return { error: { message: this.message, type: 'invalid_request_error', param: null, code: this.code }, request_id: randomUUID() };
  }
}

/** Prompt tokens the fake bills in compatible mode: one per word of every message. */
export function compatiblePromptTokens(body: Record<string, unknown>): number {
  const msgs = Array.isArray(body.messages) ? body.messages : [];
  return msgs.reduce<number>((n, m) => n + (isRecord(m) && typeof m.content === 'string' ? words(m.content).length : 0), 0);
}

/**
 * `POST /compatible-mode/v1/chat/completions` and `/embeddings` (reference §2): OpenAI's shapes;
 * a stream carries a usage chunk only when `stream_options.include_usage` asks; `top_p` must lie
 * in (0, 1).
 */
export function compatibleChat(res: ServerResponse, body: Record<string, unknown>, reply: string[], models: Set<string>): void {
  if (!models.has(String(body.model))) throw new CompatibleError(404, 'model_not_found', 'The model `' + String(body.model) + '` does not exist or you do not have access to it.');
  if (!Array.isArray(body.messages) || body.messages.length === 0) throw new CompatibleError(400, 'invalid_parameter_error', 'messages must not be empty');
  if (body.top_p !== undefined && !(typeof body.top_p === 'number' && body.top_p > 0 && body.top_p < 1)) throw new CompatibleError(400, 'invalid_parameter_error', 'Range of top_p should be (0.0, 1.0)');
  const prompt = compatiblePromptTokens(body);
  const id = `chatcmpl-${randomUUID()}`;
  const created = Math.floor(Date.now() / 1000);
  const usage = { prompt_tokens: prompt, completion_tokens: reply.length, total_tokens: prompt + reply.length };
  if (body.stream !== true) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ id, object: 'chat.completion', created, model: body.model, choices: [{ index: 0, message: { role: 'assistant', content: reply.join(' ') }, finish_reason: 'stop' }], usage }));
    return;
  }
  const chunk = (delta: Record<string, unknown>, finish: string | null) => ({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] });
  res.writeHead(200, { 'content-type': 'text/event-stream;charset=UTF-8' });
  res.write(`data: ${JSON.stringify(chunk({ role: 'assistant', content: '' }, null))}\n\n`);
  reply.forEach((w, i) => res.write(`data: ${JSON.stringify(chunk({ content: i === 0 ? w : ` ${w}` }, null))}\n\n`));
  res.write(`data: ${JSON.stringify(chunk({}, 'stop'))}\n\n`);
  if (isRecord(body.stream_options) && body.stream_options.include_usage === true) res.write(`data: ${JSON.stringify({ id, object: 'chat.completion.chunk', created, model: body.model, choices: [], usage })}\n\n`);
  res.end('data: [DONE]\n\n');
}

export function compatibleEmbeddings(res: ServerResponse, body: Record<string, unknown>, models: Set<string>): void {
  if (!models.has(String(body.model))) throw new CompatibleError(404, 'model_not_found', `The model \`${String(body.model)}\` does not exist.`);
  const texts = typeof body.input === 'string' ? [body.input] : body.input;
  if (!Array.isArray(texts) || texts.length === 0 || !texts.every((t) => typeof t === 'string')) throw new CompatibleError(400, 'invalid_parameter_error', 'input must be a string or a list of strings');
  const total = (texts as string[]).reduce((n, t) => n + words(t).length, 0);
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ object: 'list', model: body.model, data: (texts as string[]).map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t, 8) })), usage: { prompt_tokens: total, total_tokens: total }, id: randomUUID() }));
}
