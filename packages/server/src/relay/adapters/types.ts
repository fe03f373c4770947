/**
 * The adapter contract (docs/architecture.md#adapters). An adapter knows one kind of upstream: where to send a
 * request, which headers authenticate it, which body rewrites its wire format needs, and how to read
 * its errors and usage. It never touches the client socket, the database or billing.
 */

/** Inbound operations of the OpenAI-compatible endpoint. */
export type RelayMode =
  | 'chat'
  | 'completions'
  | 'embeddings'
  | 'images'
  | 'speech'
  | 'transcriptions'
  | 'translations'
  | 'moderations';

export const ALL_MODES: readonly RelayMode[] = [
  'chat',
  'completions',
  'embeddings',
  'images',
  'speech',
  'transcriptions',
  'translations',
  'moderations',
];

/** The OpenAI path suffix of each mode (after `/v1`). */
export const MODE_PATH: Record<RelayMode, string> = {
  chat: '/chat/completions',
  completions: '/completions',
  embeddings: '/embeddings',
  images: '/images/generations',
  speech: '/audio/speech',
  transcriptions: '/audio/transcriptions',
  translations: '/audio/translations',
  moderations: '/moderations',
};

/** What an adapter needs to know about the channel it is sending through. */
export interface ChannelTarget {
  id: number;
  type: number;
  key: string;
  /** The channel's base_url, or '' for the adapter default. */
  baseUrl: string;
  /** Type-specific: Azure api-version, Custom nothing, … */
  other: string;
  organization: string;
  setting: Record<string, unknown>;
}

/** Normalised usage: one definition, beside the cost formula that prices it. */
export type { Usage } from '@modelgate/shared';

/** An upstream failure as the pipeline judges it. */
export interface UpstreamError {
  status: number;
  type: string;
  code: string | null;
  param: string | null;
  message: string;
}

export interface Adapter {
  /** Folder name, also used in test names. */
  readonly slug: string;
  readonly types: readonly number[];
  readonly defaultBaseUrl: string;
  readonly modes: ReadonlySet<RelayMode>;
  /** Streams supported (chat and completions). */
  readonly stream: boolean;
  /** The upstream honours `stream_options.include_usage`; otherwise the field is removed. */
  readonly streamOptions: boolean;
  /** Built-in model list, shown by `GET /api/models` for this channel type. */
  readonly models: readonly string[];
  /** Full upstream URL for a request. `model` is the upstream (mapped) model name. */
  url(ch: ChannelTarget, mode: RelayMode, model: string): string;
  /** Request headers beyond Content-Type / Accept, which the pipeline sets. */
  headers(ch: ChannelTarget, mode: RelayMode): Record<string, string>;
  /**
   * Vendor body quirks applied to the parsed JSON body in place; returns true when it changed
   * anything (so the pipeline knows the raw body can no longer be sent as is).
   */
  prepareBody(body: Record<string, unknown>, mode: RelayMode, model: string): boolean;
  /** Reads an error reply (any status, or a 200 carrying `error`). */
  parseError(status: number, body: string): UpstreamError;
}
