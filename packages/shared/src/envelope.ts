/**
 * Types of the `/api` envelope; the schemas live in `@modelgate/shared/api` (api/envelope.ts), kept
 * out of this entry point so importing an enum does not bundle zod.
 */
import type { ApiFailure, OpenAIError, Paged } from './api/envelope.js';

export interface ApiEnvelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}
export type { ApiFailure, OpenAIError, Paged };
/** @deprecated use Paged */
export type PageData<T> = Paged<T>;
/** @deprecated use OpenAIError */
export type OpenAIErrorBody = OpenAIError;
