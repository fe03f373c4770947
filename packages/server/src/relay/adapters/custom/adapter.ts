import { openAIBilling } from '../balance.js';
import { OpenAIWireAdapter } from '../openai-base.js';
import type { UpstreamCall } from '../types.js';

/** Custom (type 8): base_url is the full upstream URL, with `{model}` replaced by the model name. */
class CustomAdapter extends OpenAIWireAdapter {
  constructor() {
    // The balance is asked at the base URL as written (the reference).
    super({ slug: 'custom', types: [8], balance: openAIBilling('') });
  }

  protected override url(call: UpstreamCall): string {
    return call.ch.baseUrl.replaceAll('{model}', encodeURIComponent(call.model));
  }
}

export const adapter = new CustomAdapter();
