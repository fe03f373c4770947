/**
 * Cloudflare's v4 API envelope as documented (developers.cloudflare.com/fundamentals/api/ "API
 * responses" and /workers-ai/get-started/rest-api/): every `/client/v4` failure, including those of
 * the Workers AI OpenAI-compatible endpoints before a model runs (a bad token, an unknown
 * account), is `{result: null, success: false, errors: [{code, message}], messages: []}`.
 */
export interface CloudflareEnvelopeError {
  result: null;
  success: false;
  errors: Array<{ code: number; message: string }>;
  messages: Array<{ code?: number; message: string }>;
}
