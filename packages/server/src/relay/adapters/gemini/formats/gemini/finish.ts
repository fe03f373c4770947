/** Gemini `finishReason` values that mean a safety or policy block (providers-international §0). */
const FILTERED = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/** Gemini `finishReason` → OpenAI `finish_reason`: STOP with a function call is `tool_calls`. */
export function openAIFinish(reason: unknown, hasCall: boolean): string | null {
  if (reason === undefined || reason === null || reason === '' || reason === 'FINISH_REASON_UNSPECIFIED') return null;
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && FILTERED.has(reason)) return 'content_filter';
  return hasCall ? 'tool_calls' : 'stop';
}

/** OpenAI `finish_reason` → Gemini `finishReason` (a function call ends with STOP). */
export function geminiFinish(finish: unknown): string {
  switch (finish) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}
