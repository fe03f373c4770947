import { ChannelType } from '@modelgate/shared';
import { openAIBilling } from '../balance.js';
import { CompatibleAdapter } from '../stream-usage.js';
import type { UpstreamCall } from '../types.js';

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
}

export const adapter = new CustomAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
