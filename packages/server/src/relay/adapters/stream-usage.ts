import { OpenAIWireAdapter } from './openai-base.js';
import type { UpstreamCall } from './types.js';

/**
 * The channel setting `stream_usage` (docs/providers.md "Stream usage"): `false` stops asking a
 * stream for its usage chunk (`stream_options` is removed, usage is counted locally) for an
 * upstream that refuses the field; `true` asks where the type does not by default. Absent, the
 * type's default stands. Applied after the default, on OpenAI chat / completions streams only.
 * True when it changed the body.
 */
export function applyStreamUsageSetting(body: Record<string, unknown>, call: UpstreamCall): boolean {
  const wanted = call.ch.setting.stream_usage;
  if (typeof wanted !== 'boolean' || !call.stream) return false;
  if (call.upstream !== 'openai-chat' && call.upstream !== 'openai-completions') return false;
  if (!wanted) {
    if (body.stream_options === undefined) return false;
    delete body.stream_options;
    return true;
  }
  const so = body.stream_options && typeof body.stream_options === 'object' ? (body.stream_options as Record<string, unknown>) : {};
  if (so.include_usage === true) return false;
  body.stream_options = { ...so, include_usage: true };
  return true;
}

/** The OpenAI-wire base with the channel's `stream_usage` setting honoured: every compatible vendor and Custom. */
export class CompatibleAdapter extends OpenAIWireAdapter {
  protected override prepareBody(body: Record<string, unknown>, call: UpstreamCall): boolean {
    return applyStreamUsageSetting(body, call);
  }
}
