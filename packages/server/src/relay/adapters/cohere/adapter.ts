import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import type { WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import type { RelayMode, UpstreamCall } from '../types.js';
import type { FormatContribution } from '../../formats/registry.js';
import { cohereChatSpec } from './formats/cohere-chat/spec.js';
import { openAIEmbeddingsCohere } from './formats/cohere-embed/index.js';
import { openAICohere } from './formats/openai-cohere/index.js';

export const COHERE_MODELS = [
  'command-a-03-2025',
  'command-r-plus-08-2024',
  'command-r-08-2024',
  'command-r-plus',
  'command-r',
  'command-r7b-12-2024',
  'embed-v4.0',
  'embed-english-v3.0',
  'embed-multilingual-v3.0',
  'rerank-v3.5',
  'rerank-english-v3.0',
  'rerank-multilingual-v3.0',
] as const;

/** Where each mode goes: Chat and Embed v2; rerank on v1, the version that still takes `return_documents`. */
const PATHS: Partial<Record<RelayMode, string>> = { chat: '/v2/chat', embeddings: '/v2/embed', rerank: '/v1/rerank' };

/**
 * Cohere (type 34; providers-international §6). Chat speaks v2 (OpenAI-like messages, SSE
 * streams; adapters/cohere/formats/openai-cohere), embeddings v2 `/embed` (adapters/cohere/formats/cohere-embed), rerank the
 * shared rerank shape. Bearer key; errors are `{"message"}`.
 */
class CohereAdapter extends AdapterBase {
  readonly slug = 'cohere';
  readonly types = [ChannelType.Cohere];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Cohere)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['cohere-chat'], embeddings: ['cohere-embed'], rerank: ['rerank'] };
  readonly streamOptions = false;
  readonly models = COHERE_MODELS;

  protected url(call: UpstreamCall): string {
    return `${trimBase(call.ch.baseUrl || this.defaultBaseUrl)}${PATHS[call.mode] ?? '/v2/chat'}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { authorization: `Bearer ${call.ch.key}` };
  }

  protected parseError(status: number, body: string): WireError {
    return parseOpenAIError(status, body);
  }

  /** 498 is Cohere's "invalid token" (a trial key past its limits, a revoked key): dead like a 401. */
  protected override disablesChannel(err: WireError): boolean {
    return err.status === 498 || super.disablesChannel(err);
  }
}

export const adapter = new CohereAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];

/** Cohere Chat v2 (reached from OpenAI chat) and v2 embed. */
export const formats: FormatContribution = { specs: [cohereChatSpec], converters: [openAICohere], bodyConverters: [openAIEmbeddingsCohere] };
