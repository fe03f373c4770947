import { midjourneyTaskAdapter } from './midjourney/task-adapter.js';
import { sunoTaskAdapter } from './suno/task-adapter.js';
import { videoTaskAdapter } from '../video/video-kind.js';
import type { TaskAdapter } from './task-types.js';

/** Channel type → task adapter: the one registration point of the task relays (like registry.ts for chat). */
export const TASK_ADAPTERS: readonly TaskAdapter[] = [midjourneyTaskAdapter, sunoTaskAdapter, videoTaskAdapter];

const BY_TYPE = new Map<number, TaskAdapter>();
for (const a of TASK_ADAPTERS) {
  for (const t of a.types) {
    if (BY_TYPE.has(t)) throw new Error(`task channel type ${t} registered twice`);
    BY_TYPE.set(t, a);
  }
}

export function taskAdapterFor(type: number): TaskAdapter | undefined {
  return BY_TYPE.get(type);
}
