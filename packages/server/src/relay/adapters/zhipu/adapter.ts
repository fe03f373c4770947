import { ChannelType, channelKeyProblem } from '@modelgate/shared';
import { specOf } from '../../formats/registry.js';
import { isObj } from '../../formats/shared/wire.js';
import type { ConvertContext, WireError } from '../../formats/types.js';
import { zhipuV3Error, zhipuV3Events, zhipuV3Failed, zhipuV3Request, zhipuV3Response } from './formats/zhipu-v3/index.js';
import { OpenAIWireAdapter, parseOpenAIError } from '../openai-base.js';
import { SigningError, type ChannelTarget, type ConvertedReply, type StreamTransformer, type UpstreamCall, type UpstreamRequest } from '../types.js';
import { zhipuToken } from './jwt.js';

export const ZHIPU_V4_MODELS = [
  'glm-4.7',
  'glm-4.6',
  'glm-4.5',
  'glm-4.5-air',
  'glm-4.5-flash',
  'glm-4.5v',
  'glm-4-plus',
  'glm-4-0520',
  'glm-4',
  'glm-4-air',
  'glm-4-airx',
  'glm-4-long',
  'glm-4-flash',
  'glm-4v-plus',
  'glm-4v',
  'glm-3-turbo',
  'embedding-2',
  'embedding-3',
] as const;
export const ZHIPU_V3_MODELS = ['chatglm_turbo', 'chatglm_pro', 'chatglm_std', 'chatglm_lite'] as const;

/** The fields Zhipu v4 chat documents; everything else (`stream_options`, `metadata`, `n`, …) is left out. */
const V4_CHAT_FIELDS = new Set(['model', 'messages', 'stream', 'temperature', 'top_p', 'max_tokens', 'stop', 'tools', 'tool_choice', 'do_sample', 'request_id', 'user_id', 'response_format']);
const V4_EMBED_FIELDS = new Set(['model', 'input', 'dimensions']);

/** The JWT header (no `Bearer`); a key that is not `id.secret` cannot sign and is refused as a channel error. */
function signZhipu(req: UpstreamRequest, ch: ChannelTarget): UpstreamRequest {
  const token = zhipuToken(ch.key);
  if (!token) {
    throw new SigningError({
      status: 401,
      type: 'zhipu_error',
      code: 'invalid_api_key',
      param: null,
      message: `channel key is not a Zhipu API key: expected ${channelKeyProblem(ChannelType.ZhipuV4, ch.key) ?? 'id.secret'}`,
      retryable: true,
      disablesChannel: true,
    });
  }
  return { ...req, headers: { ...req.headers, authorization: token } };
}

/** GLM-4V takes an inline image as bare base64: the `data:…;base64,` prefix is removed. */
function stripDataUrls(messages: unknown): void {
  if (!Array.isArray(messages)) return;
  for (const m of messages) {
    if (!isObj(m) || !Array.isArray(m.content)) continue;
    for (const part of m.content) {
      if (!isObj(part) || !isObj(part.image_url) || typeof part.image_url.url !== 'string') continue;
      const url = part.image_url.url;
      if (url.startsWith('data:')) part.image_url = { ...part.image_url, url: url.slice(url.indexOf(',') + 1) };
    }
  }
}

/**
 * Zhipu v4 / GLM-4 (type 26; reference §4): OpenAI-shaped chat (tools, images) and embeddings under
 * `/api/paas/v4`, authorised by an HS256 JWT made from the `id.secret` key. The body is reduced to
 * the documented fields, `user` becomes `user_id`, `top_p` is kept inside (0, 1) and a string
 * `stop` becomes a list; the last stream chunk carries `finish_reason` and `usage`.
 */
class ZhipuV4Adapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'zhipu-v4', types: [ChannelType.ZhipuV4], modes: ['chat', 'embeddings'], models: ZHIPU_V4_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/api/paas/v4/${call.mode === 'embeddings' ? 'embeddings' : 'chat/completions'}`;
  }

  protected override headers(): Record<string, string> {
    return {};
  }

  override sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest {
    return signZhipu(req, call.ch);
  }

  protected override prepareBody(body: Record<string, unknown>, call: UpstreamCall): boolean {
    const allowed = call.mode === 'embeddings' ? V4_EMBED_FIELDS : V4_CHAT_FIELDS;
    if (call.mode === 'chat') {
      if (typeof body.user === 'string' && body.user && body.user_id === undefined) body.user_id = body.user;
      if (body.max_completion_tokens !== undefined && body.max_tokens === undefined) body.max_tokens = body.max_completion_tokens;
      if (typeof body.top_p === 'number') body.top_p = Math.min(Math.max(body.top_p, 0.01), 0.99);
      if (typeof body.stop === 'string') body.stop = [body.stop];
      stripDataUrls(body.messages);
    }
    for (const k of Object.keys(body)) if (!allowed.has(k)) delete body[k];
    return true;
  }
}

/**
 * Zhipu v3 / ChatGLM (type 16; reference §4): `POST /api/paas/v3/model-api/{model}/invoke`, or
 * `sse-invoke` for a stream, with the same JWT. The conversion to and from OpenAI chat lives in
 * adapters/zhipu/formats/zhipu-v3; callers of other formats reach it through the OpenAI chat converters.
 */
class ZhipuV3Adapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'zhipu', types: [ChannelType.Zhipu], modes: ['chat'], models: ZHIPU_V3_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/api/paas/v3/model-api/${encodeURIComponent(call.model)}/${call.stream ? 'sse-invoke' : 'invoke'}`;
  }

  protected override headers(): Record<string, string> {
    return {};
  }

  override sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest {
    return signZhipu(req, call.ch);
  }

  /** The OpenAI chat body (converted from the caller's, capped) is replaced by the v3 request. */
  protected override prepareBody(body: Record<string, unknown>): boolean {
    const v3 = zhipuV3Request(body);
    for (const k of Object.keys(body)) delete body[k];
    Object.assign(body, v3);
    return true;
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return zhipuV3Failed(json);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = zhipuV3Response(json, cx.callerModel);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    return { ...super.streamTransformer(call, cx), events: zhipuV3Events(cx.callerModel) };
  }

  protected override parseError(status: number, body: string): WireError {
    try {
      const json = JSON.parse(body) as unknown;
      const err = isObj(json) ? zhipuV3Error(status, json) : undefined;
      if (err) return err;
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }
}

export const adapters = [new ZhipuV3Adapter(), new ZhipuV4Adapter()];
