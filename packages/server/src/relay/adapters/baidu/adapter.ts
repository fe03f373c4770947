import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { BAIDU_TOKEN_CODES, baiduChatRequest, baiduChatResponse, baiduEmbeddingsRequest, baiduEmbeddingsResponse, baiduError, baiduEvents, baiduFailed } from './formats/baidu-ernie/index.js';
import { specOf } from '../../formats/registry.js';
import type { ConvertContext, WireError, WireFormat } from '../../formats/types.js';
import { readUsage } from '../../billing/pricing.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import type { ChannelTarget, ConvertedReply, RelayMode, RequestInput, StreamTransformer, UpstreamCall, UpstreamError, UpstreamRequest } from '../types.js';
import { isQianfanV2Key, qianfanV2 } from './qianfan-v2.js';
import { BaiduTokens } from './token.js';

export const BAIDU_MODELS = [
  'ERNIE-4.0-8K',
  'ERNIE-4.0-Turbo-8K',
  'ERNIE-3.5-8K',
  'ERNIE-3.5-128K',
  'ERNIE-Speed-8K',
  'ERNIE-Speed-128K',
  'ERNIE-Lite-8K',
  'ERNIE-Tiny-8K',
  'Embedding-V1',
  'bge-large-zh',
  'bge-large-en',
  'tao-8k',
] as const;

/** Model → the workshop endpoint that serves it (reference §1.2); others use the lower-cased name. */
const ENDPOINTS: Record<string, string> = {
  'ERNIE-4.0': 'completions_pro',
  'ERNIE-Bot-4': 'completions_pro',
  'ERNIE-4.0-8K': 'completions_pro',
  'ERNIE-Bot': 'completions',
  'ERNIE-3.5-8K': 'completions',
  'ERNIE-Bot-turbo': 'eb-instant',
  'ERNIE-Lite-8K-0922': 'eb-instant',
  'ERNIE-Speed': 'ernie_speed',
  'ERNIE-Speed-8K': 'ernie_speed',
  'ERNIE-Speed-128K': 'ernie-speed-128k',
  'ERNIE-Bot-8K': 'ernie_bot_8k',
  'ERNIE-Lite-8K-0308': 'ernie-lite-8k',
  'ERNIE-Tiny-8K': 'ernie-tiny-8k',
  'BLOOMZ-7B': 'bloomz_7b1',
  'Embedding-V1': 'embedding-v1',
  'bge-large-zh': 'bge_large_zh',
  'bge-large-en': 'bge_large_en',
  'tao-8k': 'tao_8k',
};

export function baiduEndpoint(model: string): string {
  return ENDPOINTS[model] ?? model.toLowerCase();
}

/** Tokens are shared by every Baidu channel of this process, keyed by channel and key. */
const tokens = new BaiduTokens();

/**
 * Baidu ERNIE / Wenxin workshop (type 15; reference §1). The `APIKey|SecretKey` key is exchanged
 * for an OAuth access token (cached per channel, one fetch in flight), sent as `?access_token=`
 * when the request is signed. Chat and embeddings go to the model's workshop endpoint; bodies and
 * replies are converted in adapters/baidu/formats/baidu-ernie. Errors arrive as HTTP 200 `{error_code,
 * error_msg}`; 110 / 111 (token invalid / expired) drop the token and ask the pipeline for one
 * more attempt on this channel, which fetches a new one. A Qianfan v2 key (`bce-v3/…`) switches
 * the channel to v2's OpenAI-compatible API instead (qianfan-v2.ts).
 */
class BaiduAdapter extends AdapterBase {
  readonly slug = 'baidu';
  readonly types = [ChannelType.Baidu];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Baidu)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['openai-chat'], embeddings: ['openai-embeddings'] };
  readonly streamOptions = false;
  readonly models = BAIDU_MODELS;

  private base(ch: ChannelTarget): string {
    return trimBase(ch.baseUrl || this.defaultBaseUrl);
  }

  protected url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/rpc/2.0/ai_custom/v1/wenxinworkshop/${call.mode === 'embeddings' ? 'embeddings' : 'chat'}/${encodeURIComponent(baiduEndpoint(call.model))}`;
  }

  /** A `bce-v3/…` key speaks Qianfan v2 (OpenAI-compatible, Bearer): every step goes to that adapter. */
  override buildRequest(call: UpstreamCall, input: RequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    return isQianfanV2Key(call.ch.key) ? qianfanV2.buildRequest(call, input) : super.buildRequest(call, input);
  }

  /** The caller's body (converted to OpenAI chat when it is another format) becomes ERNIE's. */
  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const out = call.mode === 'embeddings' ? baiduEmbeddingsRequest(parsed, input.cx.lang) : baiduChatRequest(parsed, input.cx.lang);
    return () => JSON.stringify(out);
  }

  override async sign(req: UpstreamRequest, call: UpstreamCall): Promise<UpstreamRequest> {
    if (isQianfanV2Key(call.ch.key)) return req;
    const token = await tokens.token(call.ch.id, this.base(call.ch), call.ch.key, call.ch.guard);
    return { ...req, url: `${req.url}?access_token=${encodeURIComponent(token)}` };
  }

  override isErrorReply(call: UpstreamCall, json: Record<string, unknown>): boolean {
    if (isQianfanV2Key(call.ch.key)) return qianfanV2.isErrorReply(call, json);
    if (!baiduFailed(json)) return false;
    if (BAIDU_TOKEN_CODES.has(Number(json.error_code))) tokens.drop(call.ch.id, call.ch.key);
    return true;
  }

  override classifyError(status: number | undefined, upstreamStatus: number, body: string): UpstreamError {
    const err = super.classifyError(status, upstreamStatus, body);
    return BAIDU_TOKEN_CODES.has(Number(err.code)) ? { ...err, staleCredentials: true } : err;
  }

  protected parseError(status: number, body: string): WireError {
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      const err = baiduError(json);
      if (err) return err;
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    if (isQianfanV2Key(call.ch.key)) return qianfanV2.convertResponse(call, json, cx);
    if (call.mode === 'embeddings') {
      const body = baiduEmbeddingsResponse(json, cx.callerModel);
      return { body, usage: readUsage(body.usage), text: () => '' };
    }
    const chat = baiduChatResponse(json, cx.callerModel);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    if (isQianfanV2Key(call.ch.key)) return qianfanV2.streamTransformer(call, cx);
    return { ...super.streamTransformer(call, cx), events: baiduEvents(cx.callerModel) };
  }
}

export const adapter = new BaiduAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
