import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { specOf } from '../../formats/registry.js';
import { sseEvents } from '../../formats/sse.js';
import { hunyuanChunks, hunyuanError, hunyuanFailed, hunyuanRequest, hunyuanResponse, SIGNATURE_EXPIRED } from './formats/hunyuan/index.js';
import type { ConvertContext, UpstreamEvent, WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import { SigningError, type ConvertedReply, type RelayMode, type RequestInput, type StreamTransformer, type UpstreamCall, type UpstreamRequest } from '../types.js';
import { tc3Authorization } from './tc3.js';

export const HUNYUAN_MODELS = ['hunyuan-lite', 'hunyuan-standard', 'hunyuan-standard-256K', 'hunyuan-pro', 'hunyuan-turbo'] as const;

const ACTION = 'ChatCompletions';
const VERSION = '2023-09-01';

/** `AppId|SecretId|SecretKey` (the AppId an integer, not otherwise used), or undefined. */
export function tencentKeyParts(key: string): { secretId: string; secretKey: string } | undefined {
  const parts = key.trim().split('|').map((p) => p.trim());
  if (parts.length !== 3 || !/^\d+$/.test(parts[0]!) || !parts[1] || !parts[2]) return undefined;
  return { secretId: parts[1], secretKey: parts[2] };
}

/**
 * Tencent Hunyuan (type 23; reference §5): `POST {base}/` with `X-TC-Action: ChatCompletions`,
 * `X-TC-Version: 2023-09-01`, `X-TC-Timestamp`, signed TC3-HMAC-SHA256 over the final body and the
 * host the request goes to. Bodies and replies are converted in adapters/tencent/formats/hunyuan; errors come as
 * HTTP 200 `{Response:{Error:{Code, Message}}}`.
 */
class TencentAdapter extends AdapterBase {
  readonly slug = 'tencent';
  readonly types = [ChannelType.Tencent];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Tencent)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['openai-chat'] };
  readonly streamOptions = false;
  readonly models = HUNYUAN_MODELS;

  protected url(call: UpstreamCall): string {
    return `${trimBase(call.ch.baseUrl || this.defaultBaseUrl)}/`;
  }

  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const out = hunyuanRequest(parsed, call.model, input.cx.lang);
    return () => JSON.stringify(out);
  }

  override sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest {
    const parts = tencentKeyParts(call.ch.key);
    if (!parts) {
      throw new SigningError({ status: 401, type: 'tencent_error', code: 'invalid_api_key', param: null, message: 'channel key is not a Tencent key: expected AppId|SecretId|SecretKey', retryable: true, disablesChannel: true });
    }
    const timestamp = Math.floor(Date.now() / 1000);
    const signed = { 'content-type': 'application/json', 'x-tc-action': ACTION };
    const authorization = tc3Authorization({ ...parts, service: 'hunyuan', host: new URL(req.url).host, headers: signed, body: req.body, timestamp });
    return { ...req, headers: { ...req.headers, ...signed, authorization, 'x-tc-version': VERSION, 'x-tc-timestamp': String(timestamp) } };
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return hunyuanFailed(json);
  }

  protected parseError(status: number, body: string): WireError {
    try {
      const err = hunyuanError(JSON.parse(body) as Record<string, unknown>);
      if (err) return err;
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }

  /** Refused credentials and an exhausted account (judged by code: these errors arrive as HTTP 200); an expired signature is our clock's, not the key's. */
  protected override disablesChannel(err: WireError): boolean {
    const code = err.code ?? '';
    if (code === SIGNATURE_EXPIRED) return false;
    return code.startsWith('AuthFailure') || code.startsWith('ResourceInsufficient') || super.disablesChannel(err);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = hunyuanResponse(json, cx.callerModel);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const toChunk = hunyuanChunks(cx.callerModel);
    async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
      for await (const ev of sseEvents(body)) {
        const chunk = toChunk(ev);
        if (chunk) yield chunk;
      }
    }
    return { ...super.streamTransformer(call, cx), events };
  }
}

export const adapter = new TencentAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
