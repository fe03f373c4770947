import { z } from 'zod';
import { resource } from './contract.js';
import { openAIError } from './envelope.js';

/**
 * Video generation (issue 34): the reference's unified task surface (`/v1/video/generations`),
 * OpenAI's Videos API (`/v1/videos`), the console's playground submit and its preview download.
 * Bodies are read by the server itself (JSON or OpenAI's multipart form); these schemas document
 * them and check the answers in tests.
 */

/** The unified surface's errors: the reference's task error envelope. */
export const videoTaskError = z.object({ code: z.string(), message: z.string(), data: z.null() }).meta({ id: 'VideoTaskError' });

export const unifiedVideoBody = z
  .looseObject({
    model: z.string(),
    prompt: z.string(),
    image: z.string().optional().meta({ description: 'A reference image: an http(s) URL or a data:image/… URL' }),
    images: z.array(z.string()).optional(),
    duration: z.union([z.number(), z.string()]).optional().meta({ description: 'Seconds' }),
    seconds: z.union([z.number(), z.string()]).optional(),
    size: z.string().optional().meta({ description: '`1280x720`, or a tier such as `720p`' }),
    width: z.number().optional(),
    height: z.number().optional(),
    seed: z.number().int().optional(),
    negative_prompt: z.string().optional(),
    metadata: z.looseObject({}).optional().meta({ description: "The provider's own fields, passed through under the ones the gateway bills by" }),
  })
  .meta({ id: 'VideoGenerationRequest' });

/** The submit answer: an OpenAI-style video object with the reference's `task_id` beside `id`. */
export const unifiedVideoSubmitted = z
  .object({
    id: z.string(),
    task_id: z.string(),
    object: z.literal('video'),
    model: z.string(),
    status: z.string(),
    progress: z.number().int(),
    created_at: z.number().int(),
    seconds: z.string(),
    size: z.string(),
  })
  .meta({ id: 'VideoGenerationSubmitted' });

export const unifiedVideoTask = z
  .object({
    code: z.literal('success'),
    message: z.string(),
    data: z.object({
      task_id: z.string(),
      platform: z.string(),
      action: z.string(),
      status: z.string(),
      fail_reason: z.string(),
      result_url: z.string(),
      submit_time: z.number().int(),
      start_time: z.number().int(),
      finish_time: z.number().int(),
      progress: z.string(),
      quota: z.number().int(),
      properties: z.object({ model: z.string(), seconds: z.number(), size: z.string(), resolution: z.string() }),
      data: z.object({ format: z.string(), url: z.string() }),
    }),
  })
  .meta({ id: 'VideoGenerationTask' });

/** OpenAI's `VideoResource`. */
export const openAIVideo = z
  .object({
    id: z.string(),
    object: z.literal('video'),
    model: z.string(),
    status: z.enum(['queued', 'in_progress', 'completed', 'failed']),
    progress: z.number().int(),
    created_at: z.number().int(),
    completed_at: z.number().int().nullable(),
    expires_at: z.number().int().nullable(),
    prompt: z.string().nullable(),
    size: z.string(),
    seconds: z.string(),
    remixed_from_video_id: z.string().nullable(),
    error: z.object({ code: z.string(), message: z.string() }).nullable(),
  })
  .meta({ id: 'Video' });

export const openAIVideoBody = z
  .object({
    prompt: z.string(),
    model: z.string().optional(),
    seconds: z.string().optional(),
    size: z.string().optional(),
    input_reference: z.unknown().optional().meta({ description: 'A file (multipart) or `{image_url}`' }),
  })
  .meta({ id: 'CreateVideoRequest' });

const errors = { default: openAIError } as const;
// The relay's gate (a refused key, a rate limit) answers before the route, in OpenAI's shape.
const taskErrors = { default: z.union([videoTaskError, openAIError]) } as const;
const idParam = z.object({ id: z.string() });
const binary = z.string().meta({ format: 'binary', description: 'The video bytes (a body that is not a video container comes as a download)' });

export const videoRoutes = resource('videos', {
  'POST /v1/video/generations': {
    auth: 'token',
    summary: 'Submit a video task (the unified shape); billed per second when the upstream accepts it, refunded if it fails',
    body: unifiedVideoBody,
    response: unifiedVideoSubmitted,
    responses: taskErrors,
  },
  'GET /v1/video/generations/:task_id': {
    auth: 'token',
    summary: 'One own video task: status, progress, result_url, fail_reason',
    params: z.object({ task_id: z.string() }),
    response: unifiedVideoTask,
    responses: taskErrors,
  },
  'POST /v1/videos': {
    auth: 'token',
    summary: "OpenAI's Videos API: create a video job (JSON or multipart with `input_reference`)",
    body: openAIVideoBody,
    consumes: ['application/json', 'multipart/form-data'],
    response: openAIVideo,
    responses: errors,
  },
  'GET /v1/videos': {
    auth: 'token',
    summary: "OpenAI's Videos API: own video jobs, newest first (`limit`, `order`, `after`)",
    querystring: z.object({ limit: z.string().optional(), order: z.string().optional(), after: z.string().optional() }),
    response: z.object({ object: z.literal('list'), data: z.array(openAIVideo), first_id: z.string().nullable(), last_id: z.string().nullable(), has_more: z.boolean() }),
    responses: errors,
  },
  'GET /v1/videos/:id': { auth: 'token', summary: "OpenAI's Videos API: one own video job", params: idParam, response: openAIVideo, responses: errors },
  'DELETE /v1/videos/:id': {
    auth: 'token',
    summary: "OpenAI's Videos API: delete a completed or failed own video job",
    params: idParam,
    response: z.object({ id: z.string(), object: z.literal('video.deleted'), deleted: z.boolean() }),
    responses: errors,
  },
  'GET /v1/videos/:id/content': {
    auth: 'token',
    summary: 'The finished video, fetched from its upstream through this gateway (sandboxed, nosniff)',
    params: idParam,
    querystring: z.object({ variant: z.string().optional() }),
    response: binary,
    responses: errors,
  },
  'POST /pg/video/generations': {
    auth: 'user',
    summary: 'The console: submit a video task billed to the signed-in user (session only), in `group` if given',
    body: unifiedVideoBody.extend({ group: z.string().optional() }),
    response: unifiedVideoSubmitted,
    responses: taskErrors,
  },
  // Public: a <video> element cannot send the console's New-Api-User header. The link's signature
  // (handed out by the task lists, own tasks or every task for admins) is the authentication.
  'GET /api/task/:task_id/content': {
    auth: 'public',
    summary: "The console's preview of a finished video task, by the signed link its task list gave",
    params: z.object({ task_id: z.string() }),
    querystring: z.object({ exp: z.string(), sig: z.string() }),
    response: binary,
  },
});
