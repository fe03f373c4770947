/**
 * Midjourney and async (Suno) task states (spec §4), with the console's tag colours. The drawing
 * and task lists label them through i18n (`task:status.<value>`, `task:action.<value>`).
 */

export const MJ_STATUSES = ['SUCCESS', 'NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'MODAL'] as const;
export type MjStatus = (typeof MJ_STATUSES)[number];

/** The submit reply's `code`: 1 submitted, 21 waiting (a modal is due), 22 queued as a duplicate, 0 not submitted. */
export const MjSubmitCode = { NotSubmitted: 0, Submitted: 1, Waiting: 21, Duplicate: 22 } as const;

export const MJ_ACTIONS = [
  'IMAGINE',
  'UPSCALE',
  'VARIATION',
  'HIGH_VARIATION',
  'LOW_VARIATION',
  'PAN',
  'DESCRIBE',
  'BLEND',
  'UPLOAD',
  'SHORTEN',
  'REROLL',
  'INPAINT',
  'ZOOM',
  'CUSTOM_ZOOM',
  'MODAL',
  'SWAP_FACE',
] as const;
export type MjAction = (typeof MJ_ACTIONS)[number];

/** The model a Midjourney action is priced as (reference §5.2): `mj_<action>`, face swap `swap_face`. */
export function mjActionModel(action: MjAction): string {
  return action === 'SWAP_FACE' ? 'swap_face' : `mj_${action.toLowerCase()}`;
}

/** `''` is a task still being submitted. */
export const TASK_STATUSES = ['SUCCESS', 'NOT_START', 'SUBMITTED', 'IN_PROGRESS', 'FAILURE', 'QUEUED', 'UNKNOWN', ''] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** Suno's MUSIC and LYRICS; video tasks are `textGenerate` (prompt only) or `generate` (from reference images), the reference's words. */
export const TASK_ACTIONS = ['MUSIC', 'LYRICS', 'textGenerate', 'generate'] as const;
export type TaskAction = (typeof TASK_ACTIONS)[number];

export const TASK_PLATFORMS = ['suno', 'video'] as const;
export type TaskPlatform = (typeof TASK_PLATFORMS)[number];

/** Task states after which a task is never polled again. */
export const FINAL_TASK_STATUSES: ReadonlySet<string> = new Set(['SUCCESS', 'FAILURE']);

const STATUS_COLORS: Record<string, string> = {
  SUCCESS: 'green',
  NOT_START: 'default',
  SUBMITTED: 'gold',
  IN_PROGRESS: 'blue',
  FAILURE: 'red',
  MODAL: 'gold',
  QUEUED: 'orange',
  UNKNOWN: 'default',
  '': 'geekblue',
};

export function taskStatusColor(status: string): string {
  return STATUS_COLORS[status] ?? 'default';
}

const CODE_COLORS: Record<number, string> = { 0: 'gold', 1: 'green', 21: 'lime', 22: 'orange' };

export function mjSubmitCodeColor(code: number): string {
  return CODE_COLORS[code] ?? 'default';
}

/** Spec §9: a task that took longer than a minute shows its duration in red. */
export const SLOW_TASK_SECONDS = 60;
