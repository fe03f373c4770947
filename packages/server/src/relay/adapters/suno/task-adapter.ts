import { upstreamSideCall } from '../../upstream.js';
import type { TaskAdapter, TaskUpstreamReply } from '../task-types.js';
import type { ChannelTarget } from '../types.js';

async function send(target: ChannelTarget, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<TaskUpstreamReply> {
  // Suno-API takes the channel key as a Bearer secret (providers-china-and-tasks §9.1).
  const res = await upstreamSideCall(`${target.baseUrl.replace(/\/+$/, '')}${path}`, {
    method,
    headers: { authorization: `Bearer ${target.key}`, accept: 'application/json', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
    body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
    timeoutMs,
    guard: target.guard,
  });
  const text = res.text;
  let json: unknown = null;
  try {
    json = text ? (JSON.parse(text) as unknown) : null;
  } catch {
    json = null;
  }
  return { status: res.status, json };
}

/** Suno API (type 36): `{code, message, data}` replies; the poller reads `POST /suno/fetch`. */
export const sunoTaskAdapter: TaskAdapter = {
  slug: 'suno',
  contract: 2,
  types: [36],
  platform: 'suno',
  call: send,
  async fetchMany(target, ids, timeoutMs) {
    try {
      const r = await send(target, 'POST', '/suno/fetch', { ids }, timeoutMs);
      const env = r.json as { code?: unknown; data?: unknown } | null;
      return r.status === 200 && env?.code === 'success' && Array.isArray(env.data) ? (env.data as unknown[]) : null;
    } catch {
      return null;
    }
  },
};
