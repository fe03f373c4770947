import { modelOutputLimit } from '@modelgate/shared';
import { converterFor, setBodyModel, specOf, streamConverterFor } from '../formats/registry.js';
import { rerankReply } from '../formats/rerank/index.js';
import { sseEvents } from '../formats/sse.js';
import type { ConvertContext, FormatSpec, WireError, WireFormat } from '../formats/types.js';
import { credentialsDead, defaultRetryable } from '../upstream.js';
import { isObj } from '../formats/shared/wire.js';
import { stripV1 } from './base-url.js';
import { CONTRACT_VERSION, type Adapter, type ChannelTarget, type ConvertedReply, type ModelListRequest, type RelayMode, type ReplyHeaders, type RequestInput, type StreamTransformer, type UpstreamCall, type UpstreamError, type UpstreamRequest } from './types.js';

export type { ModelListRequest } from './types.js';

/**
 * The reply cap sent upstream (docs/relay-billing.md "Spend limits"): a clamped reservation's
 * tokens, never more than the body asks for nor the mapped model's documented output limit; the
 * format keeps a reasoning budget below it. A clamp under the body's reasoning floor (Anthropic
 * thinking needs max_tokens > 1024) is refused with the low-balance error, before any upstream
 * call. True when the body changed.
 */
function capMaxTokens(spec: FormatSpec, body: Record<string, unknown>, call: UpstreamCall, input: RequestInput): boolean {
  const clamp = input.maxTokens;
  const asked = spec.maxTokens(body);
  const limit = modelOutputLimit(call.model);
  let n = clamp !== undefined && asked !== undefined ? Math.min(clamp, asked) : (clamp ?? asked);
  if (n !== undefined && limit !== undefined && n > limit) n = limit;
  if (n === undefined || (clamp === undefined && n === asked)) return false;
  const floor = spec.minMaxTokens?.(body, call.model);
  if (floor !== undefined && clamp !== undefined && clamp < floor && (asked === undefined || asked >= floor) && input.refuseBelow) throw input.refuseBelow(floor);
  spec.setMaxTokens(body, n, call.model);
  return true;
}

/**
 * The shared base of every adapter: formats are composed from `relay/formats/` — passthrough when
 * the caller's format is one the upstream speaks, else the registered converter — so an adapter
 * only says where requests go, how they authenticate, its body quirks and how to read its errors.
 */
export abstract class AdapterBase implements Adapter {
  readonly contract = CONTRACT_VERSION;
  abstract readonly slug: string;
  abstract readonly types: readonly number[];
  abstract readonly defaultBaseUrl: string;
  abstract readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>>;
  abstract readonly streamOptions: boolean;
  abstract readonly models: readonly string[];
  private modeSet: ReadonlySet<RelayMode> | undefined;

  get modes(): ReadonlySet<RelayMode> {
    this.modeSet ??= new Set(Object.keys(this.formats) as RelayMode[]);
    return this.modeSet;
  }

  /** The full upstream URL of a call. */
  protected abstract url(call: UpstreamCall): string;
  /** Reads an error body into its parts (status as received). */
  protected abstract parseError(status: number, body: string, headers?: ReplyHeaders): WireError;

  /** Authentication and other upstream headers. */
  protected headers(_call: UpstreamCall): Record<string, string> {
    return {};
  }

  /** Vendor body quirks on the final upstream body; true when it changed anything. */
  protected prepareBody(_body: Record<string, unknown>, _call: UpstreamCall): boolean {
    return false;
  }

  /** The retry table (reference §3.3), judged on the mapped status. */
  retryable(status: number): boolean {
    return defaultRetryable(status);
  }

  protected disablesChannel(err: WireError): boolean {
    return credentialsDead(err);
  }

  upstreamFormat(mode: RelayMode, inbound: WireFormat, model?: string): WireFormat | undefined {
    return this.pickFormat(this.formatsFor(mode, model), inbound);
  }

  /** The upstream formats of a mode for a model (the declared ones unless the adapter hosts several families). */
  protected formatsFor(mode: RelayMode, _model?: string): readonly WireFormat[] | undefined {
    return this.formats[mode];
  }

  private pickFormat(list: readonly WireFormat[] | undefined, inbound: WireFormat): WireFormat | undefined {
    if (!list) return undefined;
    return list.includes(inbound) ? inbound : list.find((f) => converterFor(inbound, f) !== undefined);
  }

  /**
   * Synchronous unless a conversion started a fetch (an http(s) image for an upstream that takes
   * images inline only): then the body is written once those fetches filled it in.
   */
  buildRequest(call: UpstreamCall, input: RequestInput): UpstreamRequest | Promise<UpstreamRequest> {
    const pending: Array<Promise<unknown>> = [];
    let body: ReturnType<AdapterBase['body']>;
    try {
      body = this.body(call, { ...input, cx: { ...input.cx, pending } });
    } catch (err) {
      // A refused body: image fetches it already started end unobserved.
      for (const p of pending) p.catch(() => undefined);
      throw err;
    }
    const request = (b: Buffer | string) => ({ url: this.url(call), headers: this.headers(call), body: b });
    if (pending.length === 0) return request(typeof body === 'function' ? body() : body);
    return Promise.all(pending).then(() => request(typeof body === 'function' ? body() : body));
  }

  sign(req: UpstreamRequest, _call: UpstreamCall): UpstreamRequest | Promise<UpstreamRequest> {
    return req;
  }

  /**
   * The caller's bytes unless conversion, model mapping, a usage request, a token cap or a quirk
   * must change them; a changed body is serialised when asked (after pending fetches completed).
   */
  protected body(call: UpstreamCall, input: RequestInput): Buffer | (() => string) {
    if (!input.body) {
      if (call.model === input.callerModel || !input.multipartModel) return input.raw;
      const { start, end } = input.multipartModel;
      return Buffer.concat([input.raw.subarray(0, start), Buffer.from(call.model), input.raw.subarray(end)]);
    }
    const spec = specOf(call.upstream);
    let body: Record<string, unknown>;
    let changed = false;
    if (call.inbound === call.upstream) {
      body = { ...input.body };
      // Formats that name the model in the URL (Gemini) have nothing to rewrite in the body.
      if (call.model !== input.callerModel && (spec?.setModel || !spec)) {
        setBodyModel(call.upstream, body, call.model);
        changed = true;
      }
    } else {
      const converter = converterFor(call.inbound, call.upstream);
      if (!converter) throw new Error(`no converter ${call.inbound} → ${call.upstream}`);
      body = converter.request(input.body, input.cx);
      changed = true;
    }
    if (call.stream && spec?.streamUsage && spec.streamUsage(body, this.streamOptions)) changed = true;
    if (spec && capMaxTokens(spec, body, call, input)) changed = true;
    if (this.prepareBody(body, call)) changed = true;
    return changed ? () => JSON.stringify(body) : input.raw;
  }

  convertResponse(call: UpstreamCall, json: Record<string, unknown>, cx: ConvertContext): ConvertedReply | undefined {
    if (call.upstream === 'rerank') return rerankReply(json, cx);
    const spec = specOf(call.upstream);
    const converter = call.inbound === call.upstream ? undefined : converterFor(call.inbound, call.upstream);
    if (!spec) {
      // A non-text mode in another vendor's format (Gemini embeddings): its body converted, usage counted.
      if (!converter) return undefined;
      const body = converter.response(json, cx);
      return { body, usage: converter.usage?.(json), text: () => '', withUsage: converter.withUsage ? (u) => converter.withUsage!(body, u) : undefined };
    }
    return { body: converter?.response(json, cx), usage: spec.usage(json), text: () => spec.responseText(json) };
  }

  isErrorReply(call: UpstreamCall, json: Record<string, unknown>): boolean {
    const spec = specOf(call.upstream);
    // OpenAI's non-text modes: some compatible vendors answer 200 with an error object.
    return spec ? (spec.embeddedError?.(json) ?? false) : !!json.error && typeof json.error === 'object';
  }

  streamTransformer(call: UpstreamCall, cx: ConvertContext): StreamTransformer {
    const spec = specOf(call.upstream);
    if (!spec) throw new Error(`format ${call.upstream} does not stream`);
    const converter = call.inbound === call.upstream ? undefined : streamConverterFor(call.inbound, call.upstream);
    return { events: sseEvents, reader: spec.reader(), writer: converter ? converter.stream(cx) : spec.passthrough(cx) };
  }

  isStreamReply(contentType: string): boolean {
    return contentType.includes('text/event-stream');
  }

  /** The OpenAI way (`GET {base}/v1/models`, Bearer key); adapters of other formats override it. */
  modelListRequest(ch: ChannelTarget, _pageToken?: string): ModelListRequest {
    // This path adds `/v1` itself: a base URL copied with its `/v1` must not double it.
    return { url: `${stripV1(ch.baseUrl || this.defaultBaseUrl || 'https://api.openai.com')}/v1/models`, headers: { authorization: `Bearer ${ch.key}` } };
  }

  /** `{data:[{id}]}` → the ids. */
  readModelList(json: unknown): { models: string[]; next?: string } {
    const data = isObj(json) && Array.isArray(json.data) ? json.data : [];
    return { models: data.map((m) => (isObj(m) ? String(m.id ?? '') : '')).filter(Boolean) };
  }

  classifyError(status: number | undefined, upstreamStatus: number, body: string, headers?: ReplyHeaders): UpstreamError {
    const read = this.parseError(upstreamStatus, body, headers);
    // An error inside a 200 (Baidu, Tencent, …): the status the provider's code names, else a 500.
    const parsed = { ...read, status: status ?? (read.status >= 400 && read.status < 600 ? read.status : 500) };
    return { ...parsed, retryable: this.retryable(parsed.status), disablesChannel: this.disablesChannel(parsed) };
  }
}
