import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { providerFixture } from '../provider-fixtures.js';
import { fakeEmbedding, words } from '../rerank-scores.js';
import { FAKE_REASONING_WORDS, FAKE_VENDOR_TEXT, FAKE_VENDOR_WORDS, VendorError, bearer, chatBody, frame, isRecord, openAIError, sendJson, startSse, vendorPromptTokens } from './shared.js';

export type VendorName = 'minimax' | 'moonshot' | 'deepseek' | 'fastgpt' | 'qianfan' | 'sloppy';

/** Mutable state a test steers. */
export interface VendorState {
  keys: string[];
  /** MiniMax: answer with this `base_resp` failure (HTTP 200); `inStream` puts it in the SSE stream instead. */
  baseResp: { code: number; msg: string; inStream?: boolean } | null;
  /** DeepSeek: prompt tokens served from the cache; `legacy` reports them only as `prompt_cache_hit_tokens`. */
  cacheHit: { tokens: number; legacy?: boolean };
  /** Balance served by Moonshot (yuan or dollars by host) and DeepSeek (in `currency`). */
  balance: { amount: number; currency: 'CNY' | 'USD' };
}

export interface VendorCall {
  req: IncomingMessage;
  res: ServerResponse;
  path: string;
  body: unknown;
  state: VendorState;
}

const now = () => Math.floor(Date.now() / 1000);

type Obj = Record<string, unknown>;
/**
 * The vendors' documented bodies (server/src/relay/adapters/openai-compatible/fixtures/<vendor>.*)
 * are the templates of what differs from OpenAI: MiniMax's flags, closing frame and base_resp
 * failures, Moonshot's usage inside the final choice, DeepSeek's errors; this call's values put in.
 */
const documented = (name: string): Obj => providerFixture('openai-compatible', name).body as Obj;
const documentedEvents = (name: string): Obj[] => providerFixture('openai-compatible', name).events as Obj[];
/** A documented OpenAI-shaped vendor error, with this refusal's message. */
function documentedError(name: string, message?: string): VendorError {
  const f = providerFixture('openai-compatible', name);
  const error = (f.body as { error: Obj }).error;
  return new VendorError(f.status!, { error: { ...error, message: message ?? error.message } });
}

/** OpenAI chunk frames of the fake answer (role first, one word each); `last` builds the closing chunk. */
function chunks(id: string, model: string, extraDelta: Record<string, unknown> = {}): Array<Record<string, unknown>> {
  const base = { id, object: 'chat.completion.chunk', created: now(), model };
  return [
    { ...base, choices: [{ index: 0, delta: { role: 'assistant', content: '', ...extraDelta }, finish_reason: null }] },
    ...FAKE_VENDOR_WORDS.map((w, i) => ({ ...base, choices: [{ index: 0, delta: { content: i === 0 ? w : ` ${w}` }, finish_reason: null }] })),
  ];
}

const usageOf = (prompt: number, completion: number) => ({ prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion });

function completion(id: string, model: string, message: Record<string, unknown>, usage: Record<string, unknown>): Record<string, unknown> {
  return { id, object: 'chat.completion', created: now(), model, choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: 'stop' }], usage };
}

function requireKey(call: VendorCall, refuse: () => VendorError): void {
  const key = bearer(call.req);
  if (!key || !call.state.keys.includes(key)) throw refuse();
}

// MiniMax chatcompletion_v2: OpenAI-shaped plus sensitivity flags and `base_resp`; failures are HTTP 200.
function minimax(call: VendorCall): void {
  const { res, state } = call;
  const key = bearer(call.req);
  const failed = (code: number, msg: string) => ({ ...documented('minimax.error.base-resp'), base_resp: { status_code: code, status_msg: msg } });
  if (call.path !== '/v1/text/chatcompletion_v2') throw new VendorError(404, { base_resp: { status_code: 2013, status_msg: `unknown path ${call.path}` } });
  if (!key || !state.keys.includes(key)) return sendJson(res, 200, documented('minimax.error.base-resp'));
  const body = chatBody(call.body);
  const prompt = vendorPromptTokens(body);
  const id = randomUUID().replaceAll('-', '');
  const model = String(body.model);
  const answer = documented('minimax.chat.response');
  const frames = documentedEvents('minimax.chat.stream');
  const { id: _i, object: _o, created: _c, model: _m, choices: _ch, usage: _u, base_resp: _b, ...flags } = frames[0]!;
  const usage = { ...(answer.usage as Obj), ...usageOf(prompt, 5) };
  const fault = state.baseResp;
  if (fault && !(fault.inStream && body.stream === true)) return sendJson(res, 200, failed(fault.code, fault.msg));
  if (body.stream !== true) {
    const choice = (answer.choices as Obj[])[0]!;
    return sendJson(res, 200, { ...answer, id, created: now(), model, choices: [{ ...choice, message: { ...(choice.message as Obj), content: FAKE_VENDOR_TEXT } }], usage });
  }
  startSse(res);
  if (fault) return void res.end(frame(failed(fault.code, fault.msg)));
  for (const c of chunks(id, model)) res.write(frame({ ...c, usage: null, ...flags }));
  // The closing frame repeats the whole message (not a delta) with the usage and base_resp; no [DONE].
  const closing = frames.at(-1)!;
  const closingChoice = (closing.choices as Obj[])[0]!;
  res.end(frame({ ...closing, id, created: now(), model, choices: [{ ...closingChoice, message: { ...(closingChoice.message as Obj), content: FAKE_VENDOR_TEXT } }], usage }));
}

// Moonshot: OpenAI's shape; a stream's usage sits inside its final choice.
function moonshot(call: VendorCall): void {
  const { req, res, state } = call;
  requireKey(call, () => documentedError('moonshot.error.auth'));
  if (req.method === 'GET' && call.path === '/v1/users/me/balance') {
    const a = state.balance.amount;
    return sendJson(res, 200, { code: 0, data: { available_balance: a, voucher_balance: Math.min(a, 10), cash_balance: a - Math.min(a, 10) }, scode: '0x0', status: true });
  }
  if (call.path !== '/v1/chat/completions') throw openAIError(404, `url.not_found: ${call.path}`, 'resource_not_found_error');
  const body = chatBody(call.body);
  const prompt = vendorPromptTokens(body);
  const id = `chatcmpl-${randomUUID()}`;
  if (body.stream !== true) return sendJson(res, 200, completion(id, String(body.model), { content: FAKE_VENDOR_TEXT }, usageOf(prompt, 5)));
  startSse(res);
  for (const c of chunks(id, String(body.model))) res.write(frame(c));
  const last = documentedEvents('moonshot.chat.stream.choice-usage').at(-1)!;
  res.write(frame({ ...last, id, created: now(), model: body.model, choices: [{ ...(last.choices as Obj[])[0], usage: usageOf(prompt, 5) }] }));
  res.end(frame('[DONE]'));
}

// DeepSeek: base without /v1; reasoning_content for deepseek-reasoner; cache fields; usage always in the last chunk.
function deepseek(call: VendorCall): void {
  const { req, res, state } = call;
  // DeepSeek names the refused key by its last four characters.
  requireKey(call, () => documentedError('deepseek.error.auth', `Authentication Fails, Your api key: ****${(bearer(call.req) ?? '').slice(-4)} is invalid`));
  if (req.method === 'GET' && call.path === '/user/balance') {
    const { amount, currency } = state.balance;
    const s = (n: number) => n.toFixed(2);
    return sendJson(res, 200, { is_available: amount > 0, balance_infos: [{ currency, total_balance: s(amount), granted_balance: s(Math.min(amount, 10)), topped_up_balance: s(amount - Math.min(amount, 10)) }] });
  }
  if (call.path !== '/chat/completions' && call.path !== '/v1/chat/completions') throw openAIError(404, 'Not Found', 'invalid_request_error');
  const body = chatBody(call.body);
  if (body.model !== 'deepseek-chat' && body.model !== 'deepseek-reasoner') throw openAIError(400, 'Model Not Exist', 'invalid_request_error', 'invalid_request_error');
  const reasoner = body.model === 'deepseek-reasoner';
  const prompt = vendorPromptTokens(body);
  const hit = Math.min(state.cacheHit.tokens, prompt);
  const reasoning = reasoner ? FAKE_REASONING_WORDS.length : 0;
  const usage: Record<string, unknown> = { ...usageOf(prompt, 5 + reasoning), prompt_cache_hit_tokens: hit, prompt_cache_miss_tokens: prompt - hit };
  if (!state.cacheHit.legacy) usage.prompt_tokens_details = { cached_tokens: hit };
  if (reasoner) usage.completion_tokens_details = { reasoning_tokens: reasoning };
  const id = randomUUID();
  const model = String(body.model);
  if (body.stream !== true) {
    const message = reasoner ? { content: FAKE_VENDOR_TEXT, reasoning_content: FAKE_REASONING_WORDS.join(' ') } : { content: FAKE_VENDOR_TEXT };
    // The documented answer with this call's message (DeepSeek sends no `refusal`) and usage.
    const template = documented('deepseek.usage.cache');
    const choice = (template.choices as Obj[])[0]!;
    return sendJson(res, 200, { ...template, id, created: now(), model, system_fingerprint: 'fp_fake', choices: [{ ...choice, message: { role: 'assistant', ...message } }], usage });
  }
  startSse(res);
  res.write(': keep-alive\n\n');
  const base = { id, object: 'chat.completion.chunk', created: now(), model, system_fingerprint: 'fp_fake' };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({ ...base, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: finish }] });
  if (reasoner) {
    res.write(frame(delta({ role: 'assistant', content: null, reasoning_content: '' })));
    FAKE_REASONING_WORDS.forEach((w, i) => res.write(frame(delta({ content: null, reasoning_content: i === 0 ? w : ` ${w}` }))));
    FAKE_VENDOR_WORDS.forEach((w, i) => res.write(frame(delta({ content: i === 0 ? w : ` ${w}`, reasoning_content: null }))));
  } else {
    res.write(frame(delta({ role: 'assistant', content: '' })));
    FAKE_VENDOR_WORDS.forEach((w, i) => res.write(frame(delta({ content: i === 0 ? w : ` ${w}` }))));
  }
  // As documented, a reasoner's closing delta carries `reasoning_content: null` too.
  res.write(frame({ ...delta(reasoner ? { content: '', reasoning_content: null } : { content: '' }, 'stop'), usage }));
  res.end(frame('[DONE]'));
}

// FastGPT: `{base}/v1/chat/completions` under `/api/openapi`; `detail: true` names every event and adds flow events.
function fastgpt(call: VendorCall): void {
  const { res } = call;
  requireKey(call, () => new VendorError(401, { code: 514, statusText: 'unAuthApiKey', message: 'Api Key 不合法', data: null }));
  if (call.path !== '/api/openapi/v1/chat/completions') throw new VendorError(404, { code: 404, statusText: '', message: `not found ${call.path}`, data: null });
  const body = chatBody(call.body);
  const detail = body.detail === true;
  const id = typeof body.chatId === 'string' ? body.chatId : '';
  const flow = [{ moduleName: 'AI 对话', moduleType: 'chatNode', totalPoints: 0.01, model: 'GPT-4o-mini', tokens: 12, query: 'q', historyPreview: [] }];
  if (body.stream !== true) {
    const reply = completion(id, '', { content: FAKE_VENDOR_TEXT }, usageOf(0, 0));
    return sendJson(res, 200, detail ? { ...reply, responseData: flow } : reply);
  }
  startSse(res);
  const ev = detail ? 'answer' : undefined;
  if (detail) res.write(frame({ status: 'running', name: 'AI 对话' }, 'flowNodeStatus'));
  for (const c of chunks(id, '')) res.write(frame(c, ev));
  res.write(frame({ id, object: '', created: 0, model: '', choices: [{ delta: {}, index: 0, finish_reason: 'stop' }] }, ev));
  res.write(frame('[DONE]', ev));
  if (detail) res.write(frame(flow, 'flowResponses'));
  res.end();
}

// Qianfan v2: OpenAI-compatible under /v2 with a `bce-v3/…` API key; usage chunk only with stream_options.
function qianfan(call: VendorCall): void {
  const { res } = call;
  const iam = () => new VendorError(401, { error: { code: 'invalid_iam_token', message: 'IAM Certification failed', type: 'invalid_request_error' }, id: `as-${randomUUID().slice(0, 10)}` });
  requireKey(call, iam);
  if (call.path === '/v2/embeddings') {
    if (!isRecord(call.body) || !Array.isArray(call.body.input)) throw openAIError(400, 'input must be a list of strings', 'invalid_request_error', 'invalid_argument');
    const texts = call.body.input.map(String);
    const tokens = texts.reduce((n, t) => n + words(t).length, 0);
    return sendJson(res, 200, { id: `as-${randomUUID().slice(0, 10)}`, object: 'list', created: now(), model: call.body.model, data: texts.map((t, index) => ({ object: 'embedding', index, embedding: fakeEmbedding(t, 8) })), usage: { prompt_tokens: tokens, total_tokens: tokens } });
  }
  if (call.path !== '/v2/chat/completions') throw openAIError(404, `no route ${call.path}`, 'invalid_request_error', 'not_found');
  const body = chatBody(call.body);
  const prompt = vendorPromptTokens(body);
  const id = `as-${randomUUID().slice(0, 10)}`;
  if (body.stream !== true) return sendJson(res, 200, completion(id, String(body.model), { content: FAKE_VENDOR_TEXT }, usageOf(prompt, 5)));
  const withUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true;
  startSse(res);
  for (const c of chunks(id, String(body.model))) res.write(frame(c));
  res.write(frame({ id, object: 'chat.completion.chunk', created: now(), model: body.model, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }));
  if (withUsage) res.write(frame({ id, object: 'chat.completion.chunk', created: now(), model: body.model, choices: [], usage: usageOf(prompt, 5) }));
  res.end(frame('[DONE]'));
}

/** The sloppy server's own additions, as self-hosted OpenAI-compatible servers send them. */
export const SLOPPY_TIMINGS = { prompt_ms: 1.25, predicted_ms: 3.5 };

/**
 * A self-hosted "OpenAI-compatible" server with a loose idea of the format (what a Custom channel's
 * `force_format` is for): it answers on any path, its bodies lack `object`, `id` (or send it as
 * null) and `created` (or send it as a string), carry fields of their own (`timings`, `server`),
 * empty-string and vendor finish reasons (`""`, `eos`), `logprobs: {}`, usage without
 * `total_tokens`; its stream frames are written `data:{…}` without the space, with extra spaces,
 * with CRLF line ends, behind a comment. Everything still parses. Usage (one prompt token per word,
 * five completion tokens) always rides the last chunk, whatever `stream_options` says.
 */
function sloppy(call: VendorCall): void {
  const { req, res } = call;
  requireKey(call, () => openAIError(401, 'invalid api key', 'invalid_request_error', 'invalid_api_key'));
  if (req.method !== 'POST') throw openAIError(404, `no route ${call.path}`, 'invalid_request_error');
  const body = chatBody(call.body);
  const prompt = vendorPromptTokens(body);
  const model = String(body.model);
  const usage = { prompt_tokens: prompt, completion_tokens: FAKE_VENDOR_WORDS.length, total_tokens: null };
  if (body.stream !== true) {
    return sendJson(res, 200, {
      id: null,
      created: String(now()),
      model,
      server: 'sloppy/0.1',
      choices: [{ message: { role: 'assistant', content: FAKE_VENDOR_TEXT, tool_calls: null }, finish_reason: 'eos', logprobs: {}, seed: 42 }],
      usage,
      timings: SLOPPY_TIMINGS,
    });
  }
  startSse(res);
  res.write(':ping\n\n');
  res.write(`data:${JSON.stringify({ model, created: String(now()), choices: [{ delta: { role: 'assistant', content: '' }, index: 0, finish_reason: null }], timings: null })}\n\n`);
  FAKE_VENDOR_WORDS.forEach((w, i) => {
    const chunk = { id: null, object: '', model, choices: [{ delta: { content: i === 0 ? w : ` ${w}`, role: null }, finish_reason: '', logprobs: {} }], x_extra: i };
    res.write(`data:   ${JSON.stringify(chunk)}\r\n\r\n`);
  });
  res.write(`data: ${JSON.stringify({ choices: [{ delta: {}, index: 0, finish_reason: 'eos' }], usage, timings: SLOPPY_TIMINGS })}\n\n`);
  res.end('data:[DONE]\n\n');
}

export const VENDORS: Record<VendorName, (call: VendorCall) => void> = { minimax, moonshot, deepseek, fastgpt, qianfan, sloppy };
