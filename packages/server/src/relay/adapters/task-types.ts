import type { ChannelTarget } from './types.js';

/** An upstream answer as the task relay reads it: the status and the parsed JSON (null when the body is not JSON). */
export interface TaskUpstreamReply {
  status: number;
  json: unknown;
}

/**
 * The task kind of adapter (contract v2, capability `tasks`): an upstream that accepts a job and is
 * polled for it. It says where requests go and how they authenticate; the relay owns billing, the
 * local task store and the poller.
 */
export interface TaskAdapter {
  slug: string;
  contract: 2;
  types: readonly number[];
  /** The platform the tasks belong to (`mj` for the drawing table, `suno` for the async one). */
  platform: 'mj' | 'suno';
  /** Sends `body` (or nothing, for a GET) to the upstream path below the channel's base URL. */
  call(target: ChannelTarget, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<TaskUpstreamReply>;
  /** The upstream's view of `ids` (one batch), or null when the upstream could not answer. */
  fetchMany(target: ChannelTarget, ids: readonly string[], timeoutMs: number): Promise<unknown[] | null>;
}
