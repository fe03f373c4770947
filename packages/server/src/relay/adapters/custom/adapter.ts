import { OpenAIWireAdapter } from '../openai-base.js';
import type { UpstreamCall } from '../types.js';

/** Custom (type 8): base_url is the full upstream URL, with `{model}` replaced by the model name. */
class CustomAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'custom', types: [8] });
  }

  protected override url(call: UpstreamCall): string {
    return call.ch.baseUrl.replaceAll('{model}', encodeURIComponent(call.model));
  }
}

export const adapter = new CustomAdapter();
