import { randomBytes } from 'node:crypto';

let seq = 0;
/** Random per process, so ids from different nodes (or restarts) never collide. */
const NODE_TAG = randomBytes(5).toString('hex');

/**
 * Every request's id (Fastify's `req.id`, logged as `reqId`; the relay answers it as
 * X-Oneapi-Request-Id and stores it on the usage log). Sortable and unique across nodes: time, a
 * per-process counter and the process tag.
 */
export function newRequestId(): string {
  seq = (seq + 1) % 0x1000000;
  return `${Date.now().toString(36)}${seq.toString(36).padStart(5, '0')}${NODE_TAG}`;
}
