import { z } from 'zod';
import { ID_MAX } from '../validation.js';
import { resource, type RouteContract } from './contract.js';
import { apiResponse } from './envelope.js';
import { optionalInt } from './fields.js';

/**
 * Drawing (Midjourney) and async (Suno) tasks: the console's lists (console-api.md §5 `/midjourney`,
 * `/task`) and the `/mj` relay, whose answers keep the Midjourney proxy's own shapes.
 */

/** A drawing task as the console lists it; `submit_time` and `finish_time` are epoch milliseconds. */
export const mjTaskView = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    submit_time: z.number().int(),
    start_time: z.number().int(),
    finish_time: z.number().int(),
    channel_id: z.number().int(),
    action: z.string(),
    mj_id: z.string(),
    code: z.number().int(),
    status: z.string(),
    progress: z.string(),
    image_url: z.string(),
    prompt: z.string(),
    prompt_en: z.string(),
    description: z.string(),
    fail_reason: z.string(),
    quota: z.number().int(),
  })
  .meta({ id: 'MjTask' });
export type MjTaskView = z.infer<typeof mjTaskView>;

/** An async task as the console lists it; times are epoch seconds and `progress` is always a string (G9). */
export const asyncTaskView = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    submit_time: z.number().int(),
    start_time: z.number().int(),
    finish_time: z.number().int(),
    progress: z.string(),
    channel_id: z.number().int(),
    platform: z.string(),
    action: z.string(),
    task_id: z.string(),
    status: z.string(),
    fail_reason: z.string(),
    quota: z.number().int(),
    /** Video tasks (platform `video`): what was asked, and the console's preview route once it is finished ('' before). */
    video: z.object({ model: z.string(), seconds: z.number(), size: z.string(), preview_url: z.string() }).optional(),
  })
  .meta({ id: 'AsyncTask' });
export type AsyncTaskView = z.infer<typeof asyncTaskView>;

/** The task screen sends `end_timestamp=NaN` when unset (G9): a timestamp that is not a number is no filter. */
const looseTime = z.string().optional();

const listBase = z.object({ p: optionalInt(-1_000_000, 1_000_000), page_size: optionalInt(1, 100), start_timestamp: looseTime, end_timestamp: looseTime });
export const mjSelfQuery = listBase.extend({ mj_id: z.string().optional() });
export const mjAdminQuery = mjSelfQuery.extend({ channel_id: optionalInt(0, ID_MAX) });
export const taskSelfQuery = listBase.extend({ task_id: z.string().optional() });
export const taskAdminQuery = taskSelfQuery.extend({ channel_id: optionalInt(0, ID_MAX) });

/**
 * The Midjourney proxy's reply (providers-china-and-tasks §8.1): `{code, description, result,
 * properties}`; a task object or a list of them for the fetch routes. Loose: the proxy's task
 * objects carry fields this gateway passes through unread.
 */
export const mjReply = z.union([z.looseObject({}), z.array(z.looseObject({}))]).meta({ id: 'MjReply' });

const mj = (summary: string, method: 'GET' | 'POST' = 'POST'): RouteContract & { method: 'GET' | 'POST' } => ({
  auth: 'token',
  summary,
  method,
  ...(method === 'POST' ? { body: z.looseObject({}) } : {}),
  response: mjReply,
  responses: { default: mjReply },
});

/** The `/mj/*` relay routes, by the path below `/mj` (the `/mj-{mode}/mj/*` prefixes answer the same). */
export const MJ_RELAY_PATHS = {
  '/submit/imagine': mj('Submit an imagine task'),
  '/submit/change': mj('Upscale, vary or reroll a finished task'),
  '/submit/simple-change': mj('A change written as "<taskId> U1"'),
  '/submit/describe': mj('Describe an image'),
  '/submit/blend': mj('Blend 2 to 5 images'),
  '/submit/action': mj('Press a button (customId) of a finished task'),
  '/submit/modal': mj('Continue a task that waits for a modal'),
  '/submit/shorten': mj('Shorten a prompt'),
  '/submit/upload-discord-images': mj('Upload images; the result is a list of URLs'),
  '/insight-face/swap': mj('Swap a face'),
  '/task/:id/fetch': mj('One task, from the local store', 'GET'),
  '/task/list-by-condition': mj('Tasks by id, from the local store'),
  '/task/:id/image-seed': mj('The seed of a task image', 'GET'),
  // Public: the proxy sends no key. The signature in the URL (handed to the proxy per task with
  // MjNotifyEnabled) is the authentication; an unsigned post is refused (400) whoever sends it.
  '/notify': {
    ...mj('A task update pushed by the proxy to the signed callback URL it was handed'),
    auth: 'public' as const,
    querystring: z.object({ user: z.string(), channel: z.string(), nonce: z.string(), sig: z.string() }),
  },
  // Public: an <img> cannot send a key. Task ids are unguessable upstream ids (MjForwardUrlEnabled).
  '/image/:id': { ...mj('The image of a task, fetched from the upstream', 'GET'), auth: 'public' as const, response: z.unknown() },
} as const;

type MjPath = keyof typeof MJ_RELAY_PATHS;
type MethodOf<K extends MjPath> = (typeof MJ_RELAY_PATHS)[K]['method'];
type MjRoutes = { [K in MjPath as `${MethodOf<K>} /mj${K}` | `${MethodOf<K>} /mj-:mode/mj${K}`]: RouteContract };

function mjRelayRoutes(): MjRoutes {
  const out: Record<string, RouteContract> = {};
  for (const [path, { method, ...c }] of Object.entries(MJ_RELAY_PATHS)) {
    out[`${method} /mj${path}`] = c;
    out[`${method} /mj-:mode/mj${path}`] = c;
  }
  return out as MjRoutes;
}

export const taskRoutes = resource('tasks', {
  'GET /api/mj/': { auth: 'admin', summary: 'Every drawing task, list style (p from 0)', querystring: mjAdminQuery, response: apiResponse(z.array(mjTaskView)) },
  'GET /api/mj/self/': { auth: 'user', summary: 'Own drawing tasks, list style (p from 0)', querystring: mjSelfQuery, response: apiResponse(z.array(mjTaskView)) },
  'GET /api/task/': { auth: 'admin', summary: 'Every async task, list style (p from 0)', querystring: taskAdminQuery, response: apiResponse(z.array(asyncTaskView)) },
  'GET /api/task/self': { auth: 'user', summary: 'Own async tasks, list style (p from 0)', querystring: taskSelfQuery, response: apiResponse(z.array(asyncTaskView)) },
});

export const mjRoutes = resource('midjourney', mjRelayRoutes());

/** Suno-API's envelope (providers-china-and-tasks §9): `{code:"success"|…, message, data}`, errors with their HTTP status. */
export const sunoReply = z.looseObject({ code: z.string(), message: z.string(), data: z.unknown() }).meta({ id: 'SunoReply' });

const suno = (summary: string, extra: Partial<RouteContract> = {}): RouteContract => ({ auth: 'token', summary, response: sunoReply, responses: { default: sunoReply }, ...extra });

export const sunoRoutes = resource('suno', {
  'POST /suno/submit/:action': suno('Submit a music or lyrics task', { params: z.object({ action: z.string() }), body: z.looseObject({}) }),
  'POST /suno/fetch': suno('Own tasks by id, from the local store', { body: z.looseObject({}) }),
  'GET /suno/fetch/:id': suno('One own task, from the local store', { params: z.object({ id: z.string() }) }),
});
