import { ChannelType, type Usage } from '@modelgate/shared';
import { palmBlocked, palmChatCompletion, palmError, palmRequest, palmSimulatedEvents, palmText } from './formats/palm/index.js';
import { openAIUsageObject } from '../../formats/openai-chat/stream.js';
import type { ConvertContext, WireError } from '../../formats/types.js';
import { OpenAIWireAdapter, parseOpenAIError } from '../openai-base.js';
import type { ChannelTarget, ConvertedReply, ModelListRequest, StreamTransformer, UpstreamCall } from '../types.js';

export const PALM_MODELS = ['chat-bison-001'] as const;

/**
 * Google PaLM 2 (type 11; providers-international §3), decommissioned upstream and kept for old
 * channels: `POST {base}/v1beta2/models/{model}:generateMessage?key=…`. The OpenAI chat body
 * (converted from other callers' formats by the shared converters) is rewritten into PaLM's
 * prompt; the reply carries no usage, so it is counted locally. PaLM never streams: a streamed
 * caller is answered with the JSON reply replayed as one OpenAI chunk, then the usage chunk and `[DONE]`.
 */
class PalmAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'palm', types: [ChannelType.PaLM], modes: ['chat'], streamOptions: false, models: PALM_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/v1beta2/models/${encodeURIComponent(call.model)}:generateMessage?key=${encodeURIComponent(call.ch.key)}`;
  }

  protected override headers(): Record<string, string> {
    return {};
  }

  protected override prepareBody(body: Record<string, unknown>): boolean {
    const palm = palmRequest(body);
    for (const k of Object.keys(body)) delete body[k];
    Object.assign(body, palm);
    return true;
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return palmBlocked(json) !== undefined;
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = palmChatCompletion(json, cx.callerModel, cx.requestId);
    const text = () => palmText(json);
    if (call.inbound === 'openai-chat') return { body: chat, usage: undefined, text, withUsage: (u) => void (chat.usage = openAIUsageObject(u)) };
    // Another caller's format: converted from the OpenAI completion, again once the local count is in it.
    const body = super.convertResponse(call, chat, cx)?.body;
    if (!body) return undefined;
    const withUsage = (u: Usage) => {
      chat.usage = openAIUsageObject(u);
      const counted = super.convertResponse(call, chat, cx)?.body ?? {};
      for (const k of Object.keys(body)) delete body[k];
      Object.assign(body, counted);
    };
    return { body, usage: undefined, text, withUsage };
  }

  /** The reply is JSON even for a streamed caller: read whole, replayed as one chunk. */
  override isStreamReply(contentType: string): boolean {
    return contentType.includes('json') || contentType.includes('text/event-stream');
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    return { ...super.streamTransformer(call, cx), events: palmSimulatedEvents(cx.callerModel, cx.requestId) };
  }

  /** `GET {base}/v1beta2/models?key=…` → `{models:[{name:"models/chat-bison-001"}]}`. */
  override modelListRequest(ch: ChannelTarget, pageToken?: string): ModelListRequest {
    const page = pageToken ? `&pageToken=${encodeURIComponent(pageToken)}` : '';
    return { url: `${this.base(ch)}/v1beta2/models?key=${encodeURIComponent(ch.key)}${page}`, headers: {} };
  }

  override readModelList(json: unknown): { models: string[]; next?: string } {
    const j = (json ?? {}) as { models?: Array<{ name?: unknown }>; nextPageToken?: unknown };
    const models = (Array.isArray(j.models) ? j.models : []).map((m) => String(m?.name ?? '').replace(/^models\//, '')).filter(Boolean);
    return typeof j.nextPageToken === 'string' && j.nextPageToken ? { models, next: j.nextPageToken } : { models };
  }

  protected override parseError(status: number, body: string): WireError {
    const google = palmError(status, body);
    if (google) return google;
    try {
      // A 200 whose candidates were all filtered (isErrorReply): the filter's reason is the message.
      const json = JSON.parse(body) as unknown;
      const blocked = json && typeof json === 'object' && !Array.isArray(json) ? palmBlocked(json as Record<string, unknown>) : undefined;
      if (blocked) return { ...blocked, status };
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }

  protected override disablesChannel(err: WireError): boolean {
    return err.code === 'API_KEY_INVALID' || super.disablesChannel(err);
  }
}

export const adapter = new PalmAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
