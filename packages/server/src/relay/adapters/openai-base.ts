import { channelTypeInfo } from '@modelgate/shared';
import type { WireError, WireFormat } from '../formats/types.js';
import { AdapterBase } from './base.js';
import { stripV1, trimBase } from './base-url.js';
import type { BalanceQuery } from './balance.js';
import type { ChannelTarget, RelayMode, UpstreamCall } from './types.js';
import { ALL_MODES, MODE_FORMAT, MODE_PATH } from './types.js';

/** Declarative description of an OpenAI-wire vendor: a few lines per provider. */
export interface OpenAIVendor {
  slug: string;
  types: number[];
  /**
   * Where the OpenAI paths hang off the base URL: `v1` → `{base}/v1/chat/completions` (most),
   * `root` → `{base}/chat/completions` (DeepSeek, Perplexity: their documented base has no /v1).
   */
  pathStyle?: 'v1' | 'root';
  modes?: readonly RelayMode[];
  streamOptions?: boolean;
  models?: readonly string[];
  /** Overrides the path of a mode (MiniMax's chat path). */
  paths?: Partial<Record<RelayMode, string>>;
  /** The vendor serves OpenAI's Responses API (`/v1/responses`): Responses callers pass through. */
  responses?: boolean;
  /** The vendor's balance endpoint (adapters/balance.ts). */
  balance?: BalanceQuery;
}

export { stripV1, trimBase } from './base-url.js';

/**
 * FastAPI's validation detail (Mistral's 422 `message.detail`, Jina's `detail`): each problem as
 * `body.stream_options: Extra inputs are not permitted`, so the caller learns which field to fix.
 */
function validationDetail(v: unknown): string | undefined {
  const list = Array.isArray(v) ? v : v && typeof v === 'object' && Array.isArray((v as { detail?: unknown }).detail) ? (v as { detail: unknown[] }).detail : undefined;
  if (!list) return undefined;
  const parts = list
    .map((d) => {
      const item = d && typeof d === 'object' ? (d as { loc?: unknown; msg?: unknown }) : {};
      if (typeof item.msg !== 'string' || !item.msg) return '';
      return Array.isArray(item.loc) && item.loc.length ? `${item.loc.join('.')}: ${item.msg}` : item.msg;
    })
    .filter(Boolean);
  return parts.length ? parts.slice(0, 5).join('; ') : undefined;
}

/** Message of a non-OpenAI error body: the first of the fields vendors use (reference §3.2 step 9). */
function vendorMessage(json: Record<string, unknown>): string | undefined {
  const pick = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const header = json.header as Record<string, unknown> | undefined;
  const response = json.response as { error?: { message?: unknown } } | undefined;
  return (
    pick(json.message) ??
    pick(json.msg) ??
    pick(json.err) ??
    pick(json.error_msg) ??
    pick(typeof json.error === 'string' ? json.error : undefined) ??
    pick(json.detail) ??
    validationDetail(json.message) ??
    validationDetail(json.detail) ??
    pick(header?.message) ??
    pick(response?.error?.message)
  );
}

/** Error parsing shared by every OpenAI-wire upstream. */
export function parseOpenAIError(status: number, body: string): WireError {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  if (json && typeof json === 'object') {
    const obj = json as Record<string, unknown>;
    const err = obj.error;
    if (err && typeof err === 'object') {
      const e = err as Record<string, unknown>;
      return {
        status,
        type: typeof e.type === 'string' && e.type ? e.type : 'upstream_error',
        code: e.code === undefined || e.code === null ? null : String(e.code),
        param: e.param === undefined || e.param === null ? null : String(e.param),
        message: typeof e.message === 'string' && e.message ? e.message : `bad response status code ${status}`,
      };
    }
    const message = vendorMessage(obj);
    // A vendor's own error type (Mistral's invalid_request_message_error), not a bare "error" envelope tag.
    const type = typeof obj.type === 'string' && obj.type && obj.type !== 'error' ? obj.type : 'upstream_error';
    if (message) return { status, type, code: 'bad_response_status_code', param: String(status), message };
  }
  return { status, type: 'upstream_error', code: 'bad_response_status_code', param: String(status), message: `bad response status code ${status}` };
}

/** OpenAI's own format for each mode: the OpenAI wire format end to end. */
export function openAIFormats(modes: readonly RelayMode[]): Partial<Record<RelayMode, readonly WireFormat[]>> {
  return Object.fromEntries(modes.map((m) => [m, [MODE_FORMAT[m]]]));
}

/**
 * The shared base of OpenAI-wire vendors: OpenAI formats, Bearer auth, body passed through.
 * Other callers' formats (Anthropic Messages) reach it through the registered converters.
 */
export class OpenAIWireAdapter extends AdapterBase {
  readonly slug: string;
  readonly types: readonly number[];
  readonly defaultBaseUrl: string;
  readonly formats: Partial<Record<RelayMode, readonly WireFormat[]>>;
  readonly streamOptions: boolean;
  readonly models: readonly string[];
  readonly balance: BalanceQuery | undefined;
  private readonly prefix: string;
  private readonly paths: Partial<Record<RelayMode, string>>;

  constructor(v: OpenAIVendor) {
    super();
    this.slug = v.slug;
    this.types = v.types;
    // The upstream address is a fact about the channel type, kept once in the shared type table.
    this.defaultBaseUrl = channelTypeInfo(v.types[0]!)?.baseUrl ?? '';
    this.formats = openAIFormats(v.modes ?? ALL_MODES);
    if (v.responses && this.formats.chat) this.formats = { ...this.formats, chat: [...this.formats.chat, 'openai-responses'] };
    this.streamOptions = v.streamOptions ?? false;
    this.models = v.models ?? [];
    this.prefix = v.pathStyle === 'root' ? '' : '/v1';
    this.paths = v.paths ?? {};
    this.balance = v.balance;
  }

  protected base(ch: ChannelTarget): string {
    const base = trimBase(ch.baseUrl || this.defaultBaseUrl);
    return this.prefix === '/v1' ? stripV1(base) : base;
  }


  protected url(call: UpstreamCall): string {
    if (call.upstream === 'openai-responses') return `${this.base(call.ch)}${this.prefix}/responses`;
    return `${this.base(call.ch)}${this.paths[call.mode] ?? this.prefix + MODE_PATH[call.mode]}`;
  }

  protected override headers(call: UpstreamCall): Record<string, string> {
    return call.ch.key ? { authorization: `Bearer ${call.ch.key}` } : {};
  }

  protected parseError(status: number, body: string): WireError {
    return parseOpenAIError(status, body);
  }
}
