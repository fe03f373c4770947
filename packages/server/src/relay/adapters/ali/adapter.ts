import { ChannelType, channelTypeInfo } from '@modelgate/shared';
import { readUsage } from '../../billing/pricing.js';
import { dashscopeChatRequest, dashscopeChatResponse, dashscopeChunks, dashscopeEmbeddingsRequest, dashscopeEmbeddingsResponse, dashscopeError, dashscopeFailed } from '../../formats/dashscope/index.js';
import { specOf } from '../../formats/registry.js';
import { sseEvents } from '../../formats/sse.js';
import type { ConvertContext, UpstreamEvent, WireError, WireFormat } from '../../formats/types.js';
import { AdapterBase } from '../base.js';
import { parseOpenAIError, trimBase } from '../openai-base.js';
import type { ConvertedReply, RelayMode, RequestInput, StreamTransformer, UpstreamCall } from '../types.js';

export const ALI_MODELS = ['qwen-turbo', 'qwen-plus', 'qwen-max', 'qwen-max-longcontext', 'qwen-long', 'qwen-turbo-internet', 'qwen-plus-internet', 'qwen-max-internet', 'text-embedding-v1', 'text-embedding-v2', 'text-embedding-v3'] as const;

const PATHS: Partial<Record<RelayMode, string>> = {
  chat: '/api/v1/services/aigc/text-generation/generation',
  embeddings: '/api/v1/services/embeddings/text-embedding/text-embedding',
};

/**
 * Alibaba Qwen / DashScope (type 17; reference §2), native APIs: text-generation (streams asked
 * with `X-DashScope-SSE: enable` and `incremental_output`) and text-embedding, Bearer key. Web
 * search is `enable_search` (the caller's field, or a model named `…-internet`); the channel's
 * `other`, when set, is sent as the `X-DashScope-Plugin` header. Bodies and replies are converted
 * in formats/dashscope; errors are `{code, message, request_id}`.
 */
class AliAdapter extends AdapterBase {
  readonly slug = 'ali';
  readonly types = [ChannelType.Ali];
  readonly defaultBaseUrl = channelTypeInfo(ChannelType.Ali)?.baseUrl ?? '';
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>> = { chat: ['openai-chat'], embeddings: ['openai-embeddings'] };
  readonly streamOptions = false;
  readonly models = ALI_MODELS;

  protected url(call: UpstreamCall): string {
    return `${trimBase(call.ch.baseUrl || this.defaultBaseUrl)}${PATHS[call.mode] ?? PATHS.chat!}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    const h: Record<string, string> = { authorization: `Bearer ${call.ch.key}` };
    if (call.stream) h['x-dashscope-sse'] = 'enable';
    if (call.ch.other.trim()) h['x-dashscope-plugin'] = call.ch.other.trim();
    return h;
  }

  protected override body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    const openai = super.body(call, input);
    const parsed = JSON.parse(typeof openai === 'function' ? openai() : openai.toString('utf8')) as Record<string, unknown>;
    const out = call.mode === 'embeddings' ? dashscopeEmbeddingsRequest(parsed, call.model, input.cx.lang) : dashscopeChatRequest(parsed, call.model, input.cx.lang);
    return () => JSON.stringify(out);
  }

  override isErrorReply(_call: UpstreamCall, json: Record<string, unknown>): boolean {
    return dashscopeFailed(json);
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
