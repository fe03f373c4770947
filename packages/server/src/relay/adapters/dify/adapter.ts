import { ChannelType } from '@modelgate/shared';
import { difyChatCompletion, difyError, difyEvents, difyRequest } from './formats/dify/index.js';
import { specOf } from '../../formats/registry.js';
import { sseEvents } from '../../formats/sse.js';
import { isObj } from '../../formats/shared/wire.js';
import type { ConvertContext, WireError } from '../../formats/types.js';
import { OpenAIWireAdapter, parseOpenAIError } from '../openai-base.js';
import type { ConvertedReply, StreamTransformer, UpstreamCall } from '../types.js';

/** A Dify app answers with whatever model the app is configured for: the name only routes. */
export const DIFY_MODELS = ['dify'] as const;

/** The end-user id Dify keeps per-user state under: one per ModelGate user, never shared between them. */
export function difyUser(call: Pick<UpstreamCall, 'userId'>): string {
  return call.userId === undefined ? 'modelgate-channel-test' : `modelgate-user-${call.userId}`;
}

/**
 * Dify (type 37; providers-international §8.4): an app's chat API `POST {base}/v1/chat-messages`
 * with the app's `app-…` key as Bearer. The OpenAI chat body (other callers' formats converted
 * by the shared converters) becomes one flattened `query` with `inputs:{}`, a per-user `user`
 * and no `conversation_id` (nothing is kept between calls); `blocking` for plain calls,
 * `streaming` for streams, whose Dify events are read into OpenAI chunks (adapters/dify/formats/dify).
 */
class DifyAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'dify', types: [ChannelType.Dify], modes: ['chat'], streamOptions: false, models: DIFY_MODELS });
  }

  protected override url(call: UpstreamCall): string {
    return `${this.base(call.ch)}/v1/chat-messages`;
  }

  protected override prepareBody(body: Record<string, unknown>, call: UpstreamCall): boolean {
    const dify = difyRequest(body, call.stream, difyUser(call));
    for (const k of Object.keys(body)) delete body[k];
    Object.assign(body, dify);
    return true;
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return json.event === 'error' || (typeof json.answer !== 'string' && difyError(500, json) !== undefined);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    const chat = difyChatCompletion(json, cx.callerModel);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const events = difyEvents(cx.callerModel, cx.requestId);
    return { ...super.streamTransformer(call, cx), events: (body) => events(sseEvents(body)) };
  }

  protected override parseError(status: number, body: string): WireError {
    try {
      const json = JSON.parse(body) as unknown;
      const err = isObj(json) ? difyError(status, json) : undefined;
      if (err) return err;
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }

  /** Dify's `unauthorized` (an app key revoked or rotated) and a disabled app are dead credentials. */
  protected override disablesChannel(err: WireError): boolean {
    return err.code === 'unauthorized' || err.code === 'app_unavailable' || super.disablesChannel(err);
  }
}

export const adapter = new DifyAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
