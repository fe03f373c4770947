import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { parseGeminiError } from './formats/gemini/errors.js';
import { isObj } from '../../formats/shared/wire.js';
import type { WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase, type ModelListRequest } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import type { ChannelTarget, RelayMode, UpstreamCall } from '../types.js';
import type { FormatContribution } from '../../formats/registry.js';
import { geminiEmbedContentBatch, geminiEmbedContentOpenAI, geminiEmbeddingsOpenAI, geminiEmbedTexts } from './formats/gemini/embed-ingress.js';
import { openAIEmbeddingsGemini } from './formats/gemini/embeddings.js';
import { GEMINI_MODELS } from './formats/gemini/models.js';
import { geminiSpec } from './formats/gemini/spec.js';
import { geminiOpenAI } from './formats/gemini-openai/index.js';
import { openAIGemini } from './formats/openai-gemini/index.js';

/** The API version in the channel's `other` field (`v1` or `v1beta`, the default; reference: per-model version settings). */
function version(ch: ChannelTarget): string {
  const v = ch.other.trim();
  return /^v\d+(beta\d*|alpha\d*)?$/.test(v) ? v : 'v1beta';
}

/**
 * Google Gemini (type 24, AI Studio keys; providers-international §2). Gemini callers pass
 * through; OpenAI chat callers are converted (adapters/gemini/formats/openai-gemini), Anthropic and Responses
 * callers through OpenAI chat; OpenAI embeddings become one `batchEmbedContents`. The key goes in
 * `x-goog-api-key` (never in the URL, where logs would keep it); streams always ask for SSE.
 */
class GeminiAdapter extends AdapterBase {
  readonly slug = 'gemini';
  readonly types = [ChannelType.Gemini];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Gemini)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['gemini'], embeddings: ['gemini-embeddings'] };
  readonly streamOptions = false;
  readonly models = GEMINI_MODELS;

  private root(ch: ChannelTarget): string {
    return `${trimBase(ch.baseUrl || this.defaultBaseUrl)}/${version(ch)}`;
  }

  protected url(call: UpstreamCall): string {
    const model = `${this.root(call.ch)}/models/${encodeURIComponent(call.model)}`;
    if (call.mode === 'embeddings') return `${model}:batchEmbedContents`;
    return call.stream ? `${model}:streamGenerateContent?alt=sse` : `${model}:generateContent`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return { 'x-goog-api-key': call.ch.key };
  }

  protected parseError(status: number, body: string): WireError {
    return parseGeminiError(status, body) ?? parseOpenAIError(status, body);
  }

  /**
   * Dead credentials: 403 PERMISSION_DENIED (the reference's rule for Gemini) and the 400 that
   * Google answers for a key it does not know (reason API_KEY_INVALID), besides the common rules.
   */
  protected override disablesChannel(err: WireError): boolean {
    return err.status === 403 || err.code === 'API_KEY_INVALID' || super.disablesChannel(err);
  }

  override modelListRequest(ch: ChannelTarget, pageToken?: string): ModelListRequest {
    const query = new URLSearchParams({ pageSize: '1000' });
    if (pageToken) query.set('pageToken', pageToken);
    return { url: `${this.root(ch)}/models?${query}`, headers: { 'x-goog-api-key': ch.key } };
  }

  /** `{models:[{name:"models/gemini-2.0-flash",…}],nextPageToken}` → bare model ids. */
  override readModelList(json: unknown): { models: string[]; next?: string } {
    const obj = isObj(json) ? json : {};
    const models = (Array.isArray(obj.models) ? obj.models : []).map((m) => (isObj(m) && typeof m.name === 'string' ? m.name.replace(/^models\//, '') : '')).filter(Boolean);
    return { models, next: typeof obj.nextPageToken === 'string' && obj.nextPageToken ? obj.nextPageToken : undefined };
  }
}

export const adapter = new GeminiAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];

/**
 * Gemini generateContent and its converters to and from OpenAI chat; the embeddings formats
 * (`:batchEmbedContents` upstream, `:embedContent` and batches from callers) answer errors in
 * Gemini's shape, and a batch names its model in every request (`models/<id>`).
 */
export const formats: FormatContribution = {
  specs: [geminiSpec],
  converters: [openAIGemini, geminiOpenAI],
  bodyConverters: [openAIEmbeddingsGemini, geminiEmbedContentBatch, geminiEmbeddingsOpenAI, geminiEmbedContentOpenAI],
  bodyFormats: [
    {
      name: 'gemini-embeddings',
      errorsLike: 'gemini',
      setModel(body, model) {
        if (Array.isArray(body.requests)) body.requests = body.requests.map((r: unknown) => (isObj(r) ? { ...r, model: `models/${model}` } : r));
      },
      inputTexts: geminiEmbedTexts,
    },
    { name: 'gemini-embed-content', errorsLike: 'gemini', inputTexts: geminiEmbedTexts },
  ],
};
