import { ChannelType, type Usage } from '@modelgate/shared';
import { libraryChunks, libraryCompletion, libraryError, libraryRequest } from './formats/aiproxy-library/index.js';
import { openAIUsageObject } from '../../formats/openai-chat/stream.js';
import { sseEvents } from '../../formats/sse.js';
import { parseObject } from '../../formats/shared/wire.js';
import type { ConvertContext, UpstreamEvent, WireError } from '../../formats/types.js';
import { OpenAIWireAdapter, parseOpenAIError } from '../openai-base.js';
import { SigningError, type ConvertedReply, type RequestInput, type StreamTransformer, type UpstreamCall, type UpstreamRequest } from '../types.js';

/** The library answers with the model it is asked for; these are the ones AIProxy's library offers. */
export const AIPROXY_LIBRARY_MODELS = ['gpt-3.5-turbo', 'gpt-4o-mini', 'gpt-4o'] as const;

/**
 * AIProxy knowledge base (type 21): the reference has no adapter for it (reference §6.6, one-api
 * has). `POST {base}/api/library/ask` with the key as `Api-Key` (AIProxy's own library client)
 * and as Bearer (one-api), the library from the channel's `other` (knowledge base id), the last
 * user message as the question; the answer comes back with its documents appended as references.
 * No usage is reported: it is counted locally and written into the reply.
 */
class AIProxyLibraryAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'aiproxy-library', types: [ChannelType.AIProxyLibrary], modes: ['chat'], streamOptions: false, models: AIPROXY_LIBRARY_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/api/library/ask`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { 'api-key': call.ch.key, authorization: `Bearer ${call.ch.key}` };
  }

  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const ask = libraryRequest(parsed, { model: call.model, libraryId: call.ch.other.trim(), stream: call.stream, lang: input.cx.lang });
    return () => JSON.stringify(ask);
  }

  /** A channel saved without a knowledge base id cannot ask anything: another channel may. */
  override sign(req: UpstreamRequest, call: UpstreamCall): UpstreamRequest {
    if (!call.ch.other.trim()) {
      throw new SigningError({ status: 500, type: 'aiproxy_error', code: 'library_id_missing', param: null, message: `channel #${call.ch.id} has no knowledge base id (libraryId): set it in the channel form`, retryable: true, disablesChannel: false });
    }
    return req;
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return json.success === false;
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = libraryCompletion(json, cx.callerModel, cx.requestId, cx.lang);
    const text = () => String((chat.choices as Array<{ message: { content: string } }>)[0]!.message.content);
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

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const toChunk = libraryChunks(cx.callerModel, cx.requestId, cx.lang);
    async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
      for await (const ev of sseEvents(body)) {
        const chunk = toChunk(ev);
        if (chunk) yield chunk;
      }
    }
    return { ...super.streamTransformer(call, cx), events };
  }

  protected override parseError(status: number, body: string): WireError {
    const json = parseObject(body);
    return (json && libraryError(status, json)) || parseOpenAIError(status, body);
  }
}

export const adapter = new AIProxyLibraryAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
