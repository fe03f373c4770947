import { z } from 'zod';

/**
 * The `/api` envelope (console-api.md §4). Application errors are HTTP 200 with `success:false`
 * and a message the console toasts; a success carries `message: ""` like the reference, whose
 * console toasts some success messages as they are (`apiDoneWithMessage`: the model-ratio reset says what it did).
 */
export const apiFailure = z
  .object({ success: z.literal(false), message: z.string() })
  .meta({ id: 'ApiFailure', description: 'An application error (HTTP 200, or 401 when there is no session).' });

export const okMessage = z.literal('');

/** `{success:true, message:""}` with no `data`. */
export const apiDone = z.object({ success: z.literal(true), message: okMessage });

export function apiSuccess<T extends z.ZodType>(data: T) {
  return z.object({ success: z.literal(true), message: okMessage, data });
}

/** What a route answers with HTTP 200: its success, or the failure envelope. */
export function apiResponse<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion('success', [apiSuccess(data), apiFailure]);
}

/** A route whose success carries no `data`. */
export const apiEmpty = z.discriminatedUnion('success', [apiDone, apiFailure]);

/** A route whose success carries no `data` but a message the console shows as it is (the reference's success texts). */
export const apiDoneWithMessage = z.discriminatedUnion('success', [z.object({ success: z.literal(true), message: z.string() }), apiFailure]);

/** Paged style used by users, redemptions and logs (console-api.md §5). */
export function paged<T extends z.ZodType>(item: T) {
  return z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), page_size: z.number().int(), total_capped: z.boolean().optional() });
}

export type ApiFailure = z.infer<typeof apiFailure>;
export interface Paged<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
  /** True when `total` is a cap, not the exact count (the usage log on a large table). */
  total_capped?: boolean;
}

/** The relay's error object for `/v1` (OpenAI's shape). */
export const openAIError = z
  .object({
    error: z.object({ message: z.string(), type: z.string(), param: z.string().nullable(), code: z.string().nullable() }),
  })
  .meta({ id: 'OpenAIError' });
export type OpenAIError = z.infer<typeof openAIError>;
