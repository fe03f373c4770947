import { ChannelType } from '@modelgate/shared';
import { ollamaTagNames, openAIEmbeddingsOllama } from './formats/ollama-embed/index.js';
import type { WireFormat } from '../../formats/types.js';
import { OpenAIWireAdapter } from '../openai-base.js';
import type { ChannelTarget, ModelListRequest, RelayMode, UpstreamCall } from '../types.js';
import type { FormatContribution } from '../../formats/registry.js';

/**
 * Ollama (type 4; providers-international §8.2): chat and completions through its OpenAI-compatible
 * surface (`/v1/chat/completions`, `/v1/completions`), embeddings through the native `/api/embed`
 * (adapters/ollama/formats/ollama-embed), the model list from `/api/tags`. Ollama needs no key; one is sent only
 * when the channel has one (a proxy in front may want it).
 */
class OllamaAdapter extends OpenAIWireAdapter {
  override readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = {
    chat: ['openai-chat'],
    completions: ['openai-completions'],
    embeddings: ['ollama-embed'],
  };

  constructor() {
    super({
      slug: 'ollama',
      types: [ChannelType.Ollama],
      modes: ['chat', 'completions', 'embeddings'],
      streamOptions: true,
      models: ['llama3.1', 'llama3.2', 'qwen2.5', 'mistral', 'gemma2', 'nomic-embed-text', 'mxbai-embed-large', 'all-minilm'],
    });
  }

  protected override url(call: UpstreamCall): string {
    return call.mode === 'embeddings' ? `${this.base(call.ch)}/api/embed` : super.url(call);
  }

  override modelListRequest(ch: ChannelTarget): ModelListRequest {
    return { url: `${this.base(ch)}/api/tags`, headers: ch.key ? { authorization: `Bearer ${ch.key}` } : {} };
  }

  override readModelList(json: unknown): { models: string[]; next?: string } {
    return { models: ollamaTagNames(json) };
  }
}

export const adapter = new OllamaAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];

/** Ollama's native `/api/embed` (chat is OpenAI's wire). */
export const formats: FormatContribution = { bodyConverters: [openAIEmbeddingsOllama] };
