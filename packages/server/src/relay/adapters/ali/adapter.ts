import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { readUsage } from '../../billing/pricing.js';
import { dashscopeChatRequest, dashscopeChatResponse, dashscopeChunks, dashscopeEmbeddingsRequest, dashscopeEmbeddingsResponse, dashscopeError, dashscopeFailed } from './formats/dashscope/index.js';
import { dashscopeImageRequest, dashscopeImageResponse, dashscopeTaskError } from './formats/dashscope/images.js';
import { specOf } from '../../formats/registry.js';
import { sseEvents } from '../../formats/sse.js';
import type { ConvertContext, UpstreamEvent, WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError } from '../openai-base.js';
import type { ConvertedReply, FollowUpReply, RelayMode, RequestInput, StreamTransformer, UpstreamCall, UpstreamError, UpstreamRequest } from '../types.js';
import { dashscopeCompatible, dashscopeRoot, isCompatibleMode } from './compatible.js';
import { DEFAULT_TASK_POLLING, pollImageTask, type TaskPolling } from './image-task.js';

export const ALI_MODELS = ['qwen3-max', 'qwen-flash', 'qwen3-coder-plus', 'qwen3-coder-flash', 'qwen3-235b-a22b', 'qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-max-longcontext', 'qwen-long', 'qwen-turbo-internet', 'qwen-plus-internet', 'qwen-max-internet', 'text-embedding-v1', 'text-embedding-v2', 'text-embedding-v3', 'wanx-v1', 'wanx2.1-t2i-turbo', 'wanx2.1-t2i-plus'] as const;

const PATHS: Partial<Record<RelayMode, string>> = {
  chat: '/api/v1/services/aigc/text-generation/generation',
  embeddings: '/api/v1/services/embeddings/text-embedding/text-embedding',
  images: '/api/v1/services/aigc/text2image/image-synthesis',
};

/** The image task's polling (tests shorten it). */
export const aliTaskPolling: TaskPolling = { ...DEFAULT_TASK_POLLING };

/**
 * Alibaba Qwen / DashScope (type 17; reference §2), native APIs: text-generation (streams asked
 * with `X-DashScope-SSE: enable` and `incremental_output`) and text-embedding, Bearer key. Web
 * search is `enable_search` (the caller's field, or a model named `…-internet`); the channel's
 * `other`, when set, is sent as the `X-DashScope-Plugin` header. Bodies and replies are converted
 * in adapters/ali/formats/dashscope; errors are `{code, message, request_id}`. Images are DashScope's async
 * text2image task (`X-DashScope-Async: enable`), polled until it ends (image-task.ts). A base URL
 * ending `/compatible-mode` switches chat and embeddings to the OpenAI-compatible mode (compatible.ts).
 */
class AliAdapter extends AdapterBase {
  readonly slug = 'ali';
  readonly types = [ChannelType.Ali];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Ali)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['openai-chat'], embeddings: ['openai-embeddings'], images: ['openai-images'] };
  readonly streamOptions = false;
  readonly models = ALI_MODELS;

  /** Chat and embeddings of a compatible-mode channel go to that adapter; images stay native. */
  private compatible(call: UpstreamCall): boolean {
    return call.mode !== 'images' && isCompatibleMode(call.ch);
  }

  override buildRequest(call: UpstreamCall, input: RequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    return this.compatible(call) ? dashscopeCompatible.buildRequest(call, input) : super.buildRequest(call, input);
  }

  protected url(call: UpstreamCall): string {
    return `${dashscopeRoot(call.ch.baseUrl, this.defaultBaseUrl)}${PATHS[call.mode] ?? PATHS.chat!}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    const h: Record<string, string> = { authorization: `Bearer ${call.ch.key}` };
    if (call.stream) h['x-dashscope-sse'] = 'enable';
    if (call.mode === 'images') h['x-dashscope-async'] = 'enable';
    if (call.ch.other.trim()) h['x-dashscope-plugin'] = call.ch.other.trim();
    return h;
  }

  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const lang = input.cx.lang;
    const out = call.mode === 'images' ? dashscopeImageRequest(parsed, call.model, lang) : call.mode === 'embeddings' ? dashscopeEmbeddingsRequest(parsed, call.model, lang) : dashscopeChatRequest(parsed, call.model, lang);
    return () => JSON.stringify(out);
  }

  followUp(call: UpstreamCall, json: Record<string, unknown>, get: (url: string, headers: Record<string, string>) => Promise<FollowUpReply>): Promise<Record<string, unknown>> {
    if (call.mode !== 'images') return Promise.resolve(json);
    return pollImageTask(json, dashscopeRoot(call.ch.baseUrl, this.defaultBaseUrl), call.ch.key, get, aliTaskPolling);
  }

  override isErrorReply(call: UpstreamCall, json: Record<string, unknown>): boolean {
    if (this.compatible(call)) return dashscopeCompatible.isErrorReply(call, json);
    if (call.mode === 'images') return dashscopeFailed(json) || dashscopeTaskError(json) !== undefined;
    return dashscopeFailed(json);
  }

  override classifyError(status: number | undefined, upstreamStatus: number, body: string): UpstreamError {
    let json: Record<string, unknown> | undefined;
    try {
      json = JSON.parse(body) as Record<string, unknown>;
    } catch {
      json = undefined;
    }
    const task = json && typeof json === 'object' ? dashscopeTaskError(json) : undefined;
    if (!task) return super.classifyError(status, upstreamStatus, body);
    // A task that failed or timed out: its own status decides (a timeout is not retried: the task may still finish upstream).
    return { ...task, retryable: this.retryable(task.status), disablesChannel: this.disablesChannel(task) };
  }

  protected parseError(status: number, body: string): WireError {
    try {
      const json = JSON.parse(body) as Record<string, unknown>;
      const err = dashscopeError(status, json);
      if (err) return err;
    } catch {
      // not JSON: the generic reading below
    }
    return parseOpenAIError(status, body);
  }

  override convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    if (this.compatible(call)) return dashscopeCompatible.convertResponse(call, json, cx);
    if (call.mode === 'images') return { body: dashscopeImageResponse(json), usage: undefined, text: () => '' };
    if (call.mode === 'embeddings') {
      const body = dashscopeEmbeddingsResponse(json, cx.callerModel);
      return { body, usage: readUsage(body.usage), text: () => '' };
    }
    const chat = dashscopeChatResponse(json, cx.callerModel);
    const reply = super.convertResponse(call, chat, cx);
    const spec = specOf('openai-chat')!;
    return reply ? { ...reply, body: reply.body ?? chat } : { body: chat, usage: spec.usage(chat), text: () => spec.responseText(chat) };
  }

  override streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    if (this.compatible(call)) return dashscopeCompatible.streamTransformer(call, cx);
    const toChunk = dashscopeChunks(cx.callerModel);
    async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
      for await (const ev of sseEvents(body)) {
        const chunk = toChunk(ev);
        if (chunk) yield chunk;
      }
    }
    return { ...super.streamTransformer(call, cx), events };
  }
}

export const adapter = new AliAdapter();

/** This folder's provider unit: discovered by registry.ts `loadProviders()`. */
export const adapters = [adapter];
