import { OpenAIWireAdapter } from '../openai-base.js';
import type { ChannelTarget, RelayMode } from '../types.js';

/** Custom (type 8): base_url is the full upstream URL, with `{model}` replaced by the model name. */
class CustomAdapter extends OpenAIWireAdapter {
  constructor() {
    super({ slug: 'custom', types: [8] });
  }

  override url(ch: ChannelTarget, _mode: RelayMode, model: string): string {
    return ch.baseUrl.replaceAll('{model}', encodeURIComponent(model));
  }
}

export const adapter = new CustomAdapter();
