import type { ChannelTarget } from '../adapters/types.js';

/**
 * The video provider contract (issue 34). A provider is a folder under `relay/adapters/` with a
 * `video.ts` module exporting `videoProviders` (video-registry.ts finds it; nothing lists it). It
 * knows one upstream's asynchronous video API: what a request becomes there, how its task is
 * polled and where the finished video's bytes are. It never touches the database, the ledger or
 * the reply: relay/video/ owns billing, storage and the caller's surfaces, relay/tasks/ the polling.
 */

/** A video request in the one shape both surfaces (`/v1/video/generations`, `/v1/videos`) are read into. */
export interface VideoRequest {
  /** The model the caller named (billing, the task's model). */
  model: string;
  /** The model sent upstream: the channel's model mapping applied. */
  upstreamModel: string;
  prompt: string;
  /** Reference images: http(s) URLs or `data:image/…;base64,` URLs, first frame first. */
  images: string[];
  /** Seconds asked for; undefined: the model's default. */
  seconds?: number;
  /** A size (`1280x720`) or tier (`720p`) asked for; undefined: the model's default. */
  size?: string;
  seed?: number;
  negativePrompt?: string;
  /** Provider extras (the unified shape's `metadata`): fields of the provider's own body, set over what the gateway wrote. */
  extras: Record<string, unknown>;
}

/** What the video will be, decided before anything is sent: the bill is computed from it. */
export interface VideoPlan {
  seconds: number;
  /** The resolution tier the price table is keyed by (`720p`). */
  resolution: string;
  /** The size reported back to callers (`1280x720`, or the tier when the provider names only that). */
  size: string;
}

export type VideoState = 'queued' | 'in_progress' | 'success' | 'failure';

/** An upstream's word about a task, normalised. */
export interface VideoStatus {
  state: VideoState;
  /** 0–100 when the upstream says; else the framework's own guess by state. */
  progress?: number;
  /** The video's URL as the upstream gives it (absent when it needs the channel's credentials to fetch). */
  url?: string;
  /** When the upstream's URL stops working (epoch seconds), if known. */
  expiresAt?: number;
  /** Why it failed; `moderation` when the provider's content policy refused it. */
  error?: { code: string; message: string; moderation?: boolean };
}

/** Where a finished video's bytes are. */
export type VideoSource =
  /** On the channel's own upstream, fetched with its credentials through the channel's pool. */
  | { kind: 'channel'; url: string; headers: Record<string, string> }
  /** At a URL the upstream handed out: fetched through the SSRF guard, never with credentials. */
  | { kind: 'public'; url: string }
  /** In the upstream's answer itself (Vertex without a storage bucket). */
  | { kind: 'bytes'; data: Buffer; mimeType: string };

/** An upstream's refusal of a submit: its status, its code and its words, and whether its content policy said no. */
export class VideoUpstreamError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly moderation = false,
  ) {
    super(message);
    this.name = 'VideoUpstreamError';
  }
}

/** A request the provider cannot serve as asked (a duration or size the model does not make): the caller's error, nothing sent. */
export class VideoInputError extends Error {
  constructor(
    readonly field: 'seconds' | 'size' | 'images',
    readonly allowed: string,
  ) {
    super(`${field}: ${allowed}`);
    this.name = 'VideoInputError';
  }
}

/** How long a provider's own video URL can be handed to callers as it is. */
export type UrlLifetime =
  /** Long-lived (weeks): callers get the upstream URL itself. */
  | 'lasting'
  /** Hours: callers get the gateway's content route, which fetches the current one. */
  | 'expiring'
  /** Needs the channel's key: only the content route can fetch it. */
  | 'credentialed';

export interface VideoProvider {
  slug: string;
  /** Channel types served; a type has one video provider. */
  types: readonly number[];
  urls: UrlLifetime;
  /** The duration and size a request will get (throws VideoInputError when the model cannot make them). */
  plan(req: VideoRequest): VideoPlan;
  /** Sends the task; answers the upstream's task id (with whatever the provider needs to poll it again). */
  submit(target: ChannelTarget, req: VideoRequest, plan: VideoPlan, timeoutMs: number, io: VideoIO): Promise<string>;
  /** The task's state now; null when the upstream could not answer (the task stays pending). */
  poll(target: ChannelTarget, upstreamId: string, timeoutMs: number): Promise<VideoStatus | null>;
  /** Where the finished video's bytes are (a provider may ask its upstream again for a fresh URL). */
  source(target: ChannelTarget, upstreamId: string, stored: VideoStatus, timeoutMs: number): Promise<VideoSource>;
  /** Deletes the upstream's copy, when the upstream has such a call (OpenAI); best effort. */
  remove?(target: ChannelTarget, upstreamId: string, timeoutMs: number): Promise<void>;
}

/** What the gateway does for a provider that it may not do itself. */
export interface VideoIO {
  /**
   * A reference image's bytes: a data URL decoded, an http(s) URL fetched through the SSRF-guarded
   * client (size and time capped, raster images only), for upstreams that take images inline only.
   */
  imageBytes(url: string): Promise<{ mimeType: string; base64: string }>;
}

/** What a `video.ts` module of a provider folder exports. */
export interface VideoProviderModule {
  readonly videoProviders: readonly VideoProvider[];
}
