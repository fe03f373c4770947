import type { TaskState, TaskUpstreamReply } from '../adapters/task-types.js';
import type { ChannelTarget } from '../adapters/types.js';
import { upstreamSideCall } from '../upstream.js';

/**
 * A kind's `call`: JSON to and from `{base URL}{path}` through the guarded upstream client, with
 * the kind's own credential headers. The body is parsed leniently (null when not JSON): the task
 * relays answer a proxy's refusal in their own envelope.
 */
export function jsonTaskCall(auth: (key: string) => Record<string, string>) {
  return async (target: ChannelTarget, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<TaskUpstreamReply> => {
    const res = await upstreamSideCall(`${target.baseUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { ...auth(target.key), accept: 'application/json', ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) },
      body: method === 'POST' ? JSON.stringify(body ?? {}) : undefined,
      timeoutMs,
      guard: target.guard,
    });
    let json: unknown = null;
    try {
      json = res.text ? (JSON.parse(res.text) as unknown) : null;
    } catch {
      json = null;
    }
    return { status: res.status, json };
  };
}

/** Whether any column of `next` differs from the stored row (compared as text: drivers return numbers or strings). */
export function patchChanges<P extends object>(next: P, row: Record<keyof P, unknown>): boolean {
  return (Object.keys(next) as Array<keyof P>).some((k) => String(next[k]) !== String(row[k]));
}

/**
 * Where a task stands once its new columns are known, with the columns made final: a failure ends
 * as FAILURE at 100 %, a SUCCESS at 100 % (both task tables mark an open task by progress alone).
 */
export function finalState(next: { status: string; progress: string }, failed: boolean): TaskState {
  if (failed) {
    next.status = 'FAILURE';
    next.progress = '100%';
    return 'failure';
  }
  if (next.status !== 'SUCCESS') return 'pending';
  next.progress = '100%';
  return 'success';
}
