import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { OpenAIWireAdapter, trimBase } from '../openai-base.js';
import type { UpstreamCall } from '../types.js';
import { MODE_PATH } from '../types.js';

const DEFAULT_API_VERSION = channelTypeInfo(ChannelType.Azure)!.defaultOther!;

/**
 * Azure OpenAI (type 3, providers-international §8.5): one deployment per model, named like the
 * model without dots; api-version from the channel's `other`; the key goes in `api-key`.
 */
class AzureAdapter extends OpenAIWireAdapter {
  constructor() {
    super({
      slug: 'azure',
      types: [3],
      streamOptions: true,
      modes: ['chat', 'completions', 'embeddings', 'images', 'speech', 'transcriptions', 'translations'],
      models: ['gpt-35-turbo', 'gpt-4', 'gpt-4o', 'gpt-4o-mini', 'text-embedding-ada-002', 'dall-e-3', 'whisper', 'tts'],
    });
  }

  protected override url(call: UpstreamCall): string {
    const deployment = encodeURIComponent(call.model.replace(/\./g, ''));
    const version = encodeURIComponent(call.ch.other.trim() || DEFAULT_API_VERSION);
    return `${trimBase(call.ch.baseUrl)}/openai/deployments/${deployment}${MODE_PATH[call.mode]}?api-version=${version}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { 'api-key': call.ch.key };
  }
}

export const adapter = new AzureAdapter();
