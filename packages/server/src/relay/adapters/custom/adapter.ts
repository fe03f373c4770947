import { ChannelType } from '@modelgate/shared';
import { normaliseChunks, normaliseCompletion, withoutUnaskedUsage } from '../../formats/openai-chat/normalise.js';
import { openAIUsageObject } from '../../formats/openai-chat/stream.js';
import type { ConvertContext } from '../../formats/types.js';
import { openAIBilling } from '../balance.js';
import { CompatibleAdapter } from '../stream-usage.js';
import type { ConvertedReply, StreamTransformer, UpstreamCall } from '../types.js';

/**
 * The channel setting `force_format` (reference §3.4: "Type 8 with setting.force_format re-encodes
 * every chunk"): the upstream's chat answers, streamed or not, are rebuilt into OpenAI's published
 * shape before anything reads them (formats/openai-chat/normalise.ts). Off, the upstream's bytes
 * pass through untouched.
 */
export function forcesFormat(call: UpstreamCall): boolean {
  return call.ch.setting.force_format === true && call.mode === 'chat' && call.upstream === 'openai-chat';
}

/**
 * The events of a stream rebuilt as they arrive, so the bill reads what the caller gets; usage the
 * caller did not ask for is left out of what is written (after the bill read it).
 */
function normalised(t: StreamTransformer, cx: ConvertContext): StreamTransformer {
  const rewrite = normaliseChunks(cx);
  const events: StreamTransformer['events'] = async function* (body) {
    for await (const ev of t.events(body)) {
      const out = rewrite(ev);
      if (out) yield out;
    }
  };
  // A caller that asked for usage keeps the pass-through writer itself (it completes the chunks without a second parse).
  if (cx.clientWantsUsage) return { ...t, events };
  return {
    ...t,
    events,
    writer: {
      ...t.writer,
      write(ev, facts) {
        const json = facts.json && withoutUnaskedUsage(facts.json, cx);
        return json ? t.writer.write({ event: ev.event, data: JSON.stringify(json) }, { ...facts, json }) : t.writer.write(ev, facts);
      },
    },
  };
}

/**
 * Custom (type 8): base_url is the full upstream URL, with `{model}` replaced by the model name.
 * Streams ask for their usage chunk (`stream_options.include_usage`), so they are billed by the
 * upstream's count; an upstream that refuses the field is served with the channel setting
 * `{"stream_usage": false}` (docs/providers.md "Stream usage"), never by a retry.
 */
class CustomAdapter extends CompatibleAdapter {
  constructor() {
    // The balance is asked at the base URL as written (the reference).
    super({ slug: 'custom', types: [ChannelType.Custom], streamOptions: true, balance: openAIBilling('') });
  }

  protected override url(call: UpstreamCall): string {
    return call.ch.baseUrl.replaceAll('{model}', encodeURIComponent(call.model));
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    if (!forcesFormat(call)) return super.convertResponse(call, json, cx);
    // Read (and billed) as rebuilt, so the caller sees the numbers it pays for.
    const body = normaliseCompletion(json, cx);
    const reply = super.convertResponse(call, body, cx);
    if (!reply || reply.body) return reply;
    return {
      ...reply,
      body,
      withUsage: (u) => {
        body.usage = openAIUsageObject(u);
      },
    };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const t = super.streamTransformer(call, cx);
    return forcesFormat(call) ? normalised(t, cx) : t;
  }
}

export const adapter = new CustomAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
