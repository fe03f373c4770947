/**
 * Ollama's native API as documented in ollama/ollama `docs/api.md` ("Generate Embeddings"
 * `POST /api/embed`, "List Local Models" `GET /api/tags`, "Errors"). Chat and completions go through
 * Ollama's OpenAI-compatible `/v1` surface, whose fixtures use `openai`'s types.
 */

/** `POST /api/embed` body. */
export interface OllamaEmbedRequest {
  model: string;
  input: string | string[];
  truncate?: boolean;
  options?: Record<string, unknown>;
  keep_alive?: string | number;
  dimensions?: number;
}

/** `POST /api/embed` answer; durations in nanoseconds. */
export interface OllamaEmbedResponse {
  model: string;
  embeddings: number[][];
  total_duration?: number;
  load_duration?: number;
  prompt_eval_count?: number;
}

/** `GET /api/tags` answer. */
export interface OllamaTagsResponse {
  models: Array<{
    name: string;
    model: string;
    modified_at: string;
    size: number;
    digest: string;
    details: { parent_model?: string; format: string; family: string; families: string[] | null; parameter_size: string; quantization_level: string };
  }>;
}

/** Ollama's native error body (`/api/*`). */
export interface OllamaError {
  error: string;
}
