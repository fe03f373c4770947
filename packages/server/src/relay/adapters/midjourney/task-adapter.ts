import { upstreamSideCall } from '../../upstream.js';
import type { TaskAdapter, TaskUpstreamReply } from '../task-types.js';
import type { ChannelTarget } from '../types.js';

function baseOf(target: ChannelTarget): string {
  return target.baseUrl.replace(/\/+$/, '');
}

async function send(target: ChannelTarget, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<TaskUpstreamReply> {
  // The proxy authenticates with `mj-api-secret` (providers-china-and-tasks §8.1); a wrong one is a 401 with an empty body.
  const res = await upstreamSideCall(`${baseOf(target)}${path}`, {
    method,
    headers: { 'mj-api-secret': target.key, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}), accept: 'application/json' },
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

/** Midjourney Proxy (type 2, novicezk) and Midjourney Proxy Plus (type 5, trueai): the same wire format under `/mj`. */
export const midjourneyTaskAdapter: TaskAdapter = {
  slug: 'midjourney',
  contract: 2,
  types: [2, 5],
  platform: 'mj',
  call: send,
  async fetchMany(target, ids, timeoutMs) {
    try {
      const r = await send(target, 'POST', '/mj/task/list-by-condition', { ids }, timeoutMs);
      return r.status === 200 && Array.isArray(r.json) ? (r.json as unknown[]) : null;
    } catch {
      return null;
    }
  },
};
