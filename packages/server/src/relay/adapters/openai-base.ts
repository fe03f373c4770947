import { channelTypeInfo } from '@modelgate/shared';
import type { Adapter, ChannelTarget, RelayMode, UpstreamError } from './types.js';
import { ALL_MODES, MODE_PATH } from './types.js';

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
}

export function trimBase(url: string): string {
  return url.replace(/\/+$/, '');
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
    pick(header?.message) ??
    pick(response?.error?.message)
  );
}

/** Error parsing shared by every OpenAI-wire upstream. */
export function parseOpenAIError(status: number, body: string): UpstreamError {
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
    if (message) return { status, type: 'upstream_error', code: 'bad_response_status_code', param: String(status), message };
  }
  return { status, type: 'upstream_error', code: 'bad_response_status_code', param: String(status), message: `bad response status code ${status}` };
}

/** The shared base: OpenAI wire format, Bearer auth, body passed through. */
export class OpenAIWireAdapter implements Adapter {
  readonly slug: string;
  readonly types: readonly number[];
  readonly defaultBaseUrl: string;
  readonly modes: ReadonlySet<RelayMode>;
  readonly stream = true;
  readonly streamOptions: boolean;
  readonly models: readonly string[];
  private readonly prefix: string;
  private readonly paths: Partial<Record<RelayMode, string>>;

  constructor(v: OpenAIVendor) {
    this.slug = v.slug;
    this.types = v.types;
    // The upstream address is a fact about the channel type, kept once in the shared type table.
    this.defaultBaseUrl = channelTypeInfo(v.types[0]!)?.baseUrl ?? '';
    this.modes = new Set(v.modes ?? ALL_MODES);
    this.streamOptions = v.streamOptions ?? false;
    this.models = v.models ?? [];
    this.prefix = v.pathStyle === 'root' ? '' : '/v1';
    this.paths = v.paths ?? {};
  }

  base(ch: ChannelTarget): string {
    return trimBase(ch.baseUrl || this.defaultBaseUrl);
  }

  url(ch: ChannelTarget, mode: RelayMode, _model: string): string {
    return `${this.base(ch)}${this.paths[mode] ?? this.prefix + MODE_PATH[mode]}`;
  }

  headers(ch: ChannelTarget, _mode: RelayMode): Record<string, string> {
    return ch.key ? { authorization: `Bearer ${ch.key}` } : {};
  }

  prepareBody(_body: Record<string, unknown>, _mode: RelayMode, _model: string): boolean {
    return false;
  }

  parseError(status: number, body: string): UpstreamError {
    return parseOpenAIError(status, body);
  }
}
