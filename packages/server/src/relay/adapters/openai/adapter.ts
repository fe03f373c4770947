import { ChannelType } from '@modelgate/shared';
import { openAIBilling } from '../balance.js';
import { OpenAIWireAdapter } from '../openai-base.js';
import type { UpstreamCall } from '../types.js';
import { ALL_MODES, MODE_PATH } from '../types.js';

export const OPENAI_MODELS = [
  'gpt-3.5-turbo', 'gpt-3.5-turbo-0125', 'gpt-3.5-turbo-1106', 'gpt-3.5-turbo-16k', 'gpt-3.5-turbo-instruct',
  'gpt-4', 'gpt-4-0613', 'gpt-4-32k', 'gpt-4-turbo', 'gpt-4-turbo-2024-04-09', 'gpt-4-1106-preview', 'gpt-4-0125-preview',
  'gpt-4o', 'gpt-4o-2024-05-13', 'gpt-4o-2024-08-06', 'gpt-4o-2024-11-20', 'chatgpt-4o-latest', 'gpt-4o-mini',
  'gpt-4o-mini-2024-07-18', 'gpt-4o-audio-preview', 'gpt-4o-realtime-preview', 'o1', 'o1-2024-12-17', 'o1-preview', 'o1-mini',
  'gpt-4.1', 'gpt-4.1-mini', 'gpt-4.1-nano', 'o1-pro', 'o3', 'o3-mini', 'o3-pro', 'o4-mini',
  'gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-5-chat-latest', 'gpt-5-codex', 'gpt-5-pro',
  'gpt-5.1', 'gpt-5.1-codex', 'gpt-5.1-codex-mini', 'gpt-5.1-codex-max', 'gpt-5.2', 'gpt-5.2-codex', 'gpt-5.2-pro', 'gpt-5.3-codex',
  'gpt-5.4', 'gpt-5.4-mini', 'gpt-5.4-nano', 'gpt-5.4-pro', 'gpt-5.5', 'gpt-5.5-pro', 'gpt-5.6-sol', 'gpt-5.6-terra', 'gpt-5.6-luna', 'gpt-6.2-sol',
  'text-embedding-3-small', 'text-embedding-3-large', 'text-embedding-ada-002',
  'text-moderation-latest', 'text-moderation-stable', 'omni-moderation-latest',
  'dall-e-2', 'dall-e-3', 'whisper-1', 'tts-1', 'tts-1-hd', 'tts-1-1106', 'tts-1-hd-1106',
] as const;

/**
 * OpenAI itself (type 1): the inbound path is the upstream path. o1-family models take
 * `max_completion_tokens`, not `max_tokens` (reference §11).
 */
class OpenAIAdapter extends OpenAIWireAdapter {
  constructor() {
    super({
      slug: 'openai',
      types: [ChannelType.OpenAI],
      // OpenAI's own Realtime API (`/v1/realtime` WebSocket): only OpenAI and Azure serve it.
      modes: [...ALL_MODES, 'realtime'],
      streamOptions: true,
      responses: true,
      models: OPENAI_MODELS,
      balance: openAIBilling('https://api.openai.com'),
    });
  }

  protected override url(call: UpstreamCall): string {
    const base = this.base(call.ch);
    // The Realtime API names the model in the query (`wss://…/v1/realtime?model=`).
    if (call.mode === 'realtime') return `${super.url(call)}?model=${encodeURIComponent(call.model)}`;
    // A Cloudflare AI Gateway base already ends at the provider segment: no /v1 after it.
    if (base.includes('gateway.ai.cloudflare.com')) return `${base}${call.upstream === 'openai-responses' ? '/responses' : MODE_PATH[call.mode]}`;
    return super.url(call);
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    const h = super.headers(call);
    if (call.ch.organization) h['openai-organization'] = call.ch.organization;
    return h;
  }

  protected override prepareBody(body: Record<string, unknown>, call: UpstreamCall): boolean {
    if (call.mode === 'chat' && /^o[13]/.test(call.model) && body.max_tokens !== undefined && body.max_completion_tokens === undefined) {
      body.max_completion_tokens = body.max_tokens;
      delete body.max_tokens;
      return true;
    }
    return false;
  }
}

export const adapter = new OpenAIAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
