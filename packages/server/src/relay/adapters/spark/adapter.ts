import { ChannelType, channelTypeInfo, isVersionName } from '@modelgate/shared';
import { specOf } from '../../formats/registry.js';
import { parseObject } from '../../formats/shared/wire.js';
import { SPARK_DEAD_CODES, sparkChunks, sparkCompletion, sparkError, sparkRequest, sparkRoute } from './formats/spark/index.js';
import type { ConvertContext, UpstreamEvent, WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import { SigningError, type ConvertedReply, type RelayMode, type RequestInput, type StreamTransformer, type TransportOptions, type TransportReply, type UpstreamCall, type UpstreamRequest } from '../types.js';
import { sparkKeyParts, sparkSignedUrl } from './sign.js';
import { SPARK_FRAMES_TYPE, sparkTransport } from './transport.js';

export const SPARK_MODELS = ['SparkDesk', 'SparkDesk-v1.1', 'SparkDesk-v2.1', 'SparkDesk-v3.1', 'SparkDesk-v3.5', 'SparkDesk-v4.0', 'spark-lite', 'spark-pro', 'spark-pro-128k', 'spark-max', 'spark-max-32k', 'spark-4.0-ultra'] as const;

const DEFAULT_BASE = 'wss://spark-api.xf-yun.com';

/** The NDJSON body of the transport → Spark frames, one a line, decoded as they arrive. */
async function* frameLines(body: AsyncIterable<Buffer>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let rest = '';
  for await (const chunk of body) {
    rest += decoder.decode(chunk, { stream: true });
    let nl = rest.indexOf('\n');
    while (nl >= 0) {
      const line = rest.slice(0, nl).trim();
      rest = rest.slice(nl + 1);
      if (line) yield line;
      nl = rest.indexOf('\n');
    }
  }
  rest += decoder.decode();
  if (rest.trim()) yield rest.trim();
}

/**
 * iFlytek Spark (type 18; reference §3): one WebSocket per request to `{base}{/vX.Y/chat}`, the URL
 * signed HMAC-SHA256 over host, date and request line; the version (path and `domain`) from the
 * model, else the channel's `other`. The OpenAI chat body becomes the request frame; the frames
 * come back as OpenAI chunks (streams) or one completion, usage from the last frame.
 */
class SparkAdapter extends AdapterBase {
  readonly slug = 'spark';
  readonly types = [ChannelType.Xunfei];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Xunfei)?.baseUrl || DEFAULT_BASE;
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['openai-chat'] };
  readonly streamOptions = false;
  readonly models = SPARK_MODELS;

  /** Unsigned: `sign` adds the query that authenticates it. */
  protected url(call: UpstreamCall): string {
    return `${trimBase(call.ch.baseUrl || this.defaultBaseUrl)}${sparkRoute(call.model, call.ch.other).path}`;
  }

  /** The OpenAI body the pipeline prepared (mapped model, capped max_tokens) → the Spark request frame. */
  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const { domain } = sparkRoute(call.model, call.ch.other);
    // A key that cannot sign is refused in `sign`.
    const appId = sparkKeyParts(call.ch.key)?.appId ?? '';
    const frame = sparkRequest(parsed, { appId, uid: call.userId === undefined ? 'modelgate' : `user-${call.userId}`, domain, lang: input.cx.lang });
    return () => JSON.stringify(frame);
  }

  override sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest {
    // The version is placed in the path: a row saved before the save rule may hold anything.
    const version = call.ch.other.trim();
    if (version && !isVersionName(version)) {
      throw new SigningError({ status: 500, type: 'new_api_error', code: 'channel_target_invalid', param: null, message: `iFlytek Spark channel #${call.ch.id}: its model version is not a version name (e.g. v3.5); fix it in the channel form`, retryable: true, disablesChannel: false });
    }
    const parts = sparkKeyParts(call.ch.key);
    if (!parts) {
      throw new SigningError({ status: 401, type: 'xunfei_error', code: 'invalid_api_key', param: null, message: 'channel key is not an iFlytek Spark key: expected APPID|APISecret|APIKey', retryable: true, disablesChannel: true });
    }
    const u = new URL(req.url);
    return { ...req, url: sparkSignedUrl(`${u.protocol}//${u.host}`, u.pathname, parts) };
  }

  transport(req: UpstreamRequest, call: UpstreamCall, opts: TransportOptions): Promise<TransportReply> {
    return sparkTransport(req, call, opts);
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return sparkError(json) !== undefined;
  }

  override isStreamReply(contentType: string): boolean {
    return contentType.includes(SPARK_FRAMES_TYPE);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = sparkCompletion(json, cx.callerModel, cx.requestId);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const toChunk = sparkChunks(cx.callerModel, cx.requestId);
    async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
      for await (const line of frameLines(body)) {
        const ev = toChunk(line);
        if (ev) yield ev;
      }
    }
    return { ...super.streamTransformer(call, cx), events };
  }

  /** A frame with an error code, or the upgrade's refusal (`{"message":"HMAC signature does not match"}`). */
  protected parseError(status: number, body: string): WireError {
    const json = parseObject(body);
    const err = json ? sparkError(json) : undefined;
    return err ?? parseOpenAIError(status, body);
  }

  protected override disablesChannel(err: WireError): boolean {
    return SPARK_DEAD_CODES.has(err.code ?? '') || super.disablesChannel(err);
  }
}

export const adapter = new SparkAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
