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
      types: [ChannelType.Azure],
      streamOptions: true,
      // Azure serves image edits for gpt-image-1 deployments but no variations endpoint (refused 501);
      // realtime lives at /openai/realtime?deployment= (providers-international §8.5).
      modes: ['chat', 'completions', 'embeddings', 'images', 'image-edits', 'speech', 'transcriptions', 'translations', 'realtime'],
      models: ['gpt-35-turbo', 'gpt-4', 'gpt-4o', 'gpt-4o-mini', 'gpt-4o-realtime-preview', 'text-embedding-ada-002', 'dall-e-3', 'whisper', 'tts'],
    });
  }

  protected override url(call: UpstreamCall): string {
    const deployment = encodeURIComponent(call.model.replace(/\./g, ''));
    const version = encodeURIComponent(call.ch.other.trim() || DEFAULT_API_VERSION);
    if (call.mode === 'realtime') return `${trimBase(call.ch.baseUrl)}/openai/realtime?api-version=${version}&deployment=${deployment}`;
    return `${trimBase(call.ch.baseUrl)}/openai/deployments/${deployment}${MODE_PATH[call.mode]}?api-version=${version}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { 'api-key': call.ch.key };
  }
}

export const adapter = new AzureAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
