/** The `/api` envelope (console-api.md §4): HTTP 200 with success false for application errors. */
export interface ApiEnvelope<T = unknown> {
  success: boolean;
  message: string;
  data?: T;
}

/** Paged style used by users, redemptions and logs (console-api.md §5). */
export interface PageData<T> {
  items: T[];
  total: number;
  page: number;
  page_size: number;
}

/** Relay error object for `/v1` (OpenAI's shape). */
export interface OpenAIErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
}
