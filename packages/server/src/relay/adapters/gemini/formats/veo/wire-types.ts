/**
 * Veo's wire format (Gemini API `models/{model}:predictLongRunning` and its long-running
 * operation; Vertex AI `publishers/google/models/{model}:predictLongRunning` and
 * `:fetchPredictOperation`), as documented on ai.google.dev/gemini-api/docs/video and
 * cloud.google.com/vertex-ai/generative-ai/docs/model-reference/veo-video-generation, and as
 * `@google/genai` (models.generateVideos, operations.getVideosOperation) writes and reads it.
 */

export interface VeoImage {
  bytesBase64Encoded?: string;
  gcsUri?: string;
  mimeType?: string;
}

export interface VeoRequest {
  instances: Array<{ prompt: string; image?: VeoImage; lastFrame?: VeoImage }>;
  parameters: {
    aspectRatio?: '16:9' | '9:16';
    durationSeconds?: number;
    resolution?: '720p' | '1080p';
    negativePrompt?: string;
    personGeneration?: string;
    sampleCount?: number;
    /** Vertex AI only. */
    seed?: number;
    /** Vertex AI only: a gs:// prefix the videos are written to instead of being answered inline. */
    storageUri?: string;
    enhancePrompt?: boolean;
    generateAudio?: boolean;
  };
}

/** `google.rpc.Status`, in an operation that ended in error. */
export interface GoogleStatus {
  code: number;
  message: string;
  status?: string;
  details?: unknown[];
}

/** The Gemini API's operation (`GET /v1beta/{name}`). */
export interface GeminiVideoOperation {
  name: string;
  done?: boolean;
  metadata?: Record<string, unknown>;
  error?: GoogleStatus;
  response?: {
    '@type'?: string;
    generateVideoResponse?: {
      generatedSamples?: Array<{ video?: { uri?: string; encodedVideo?: string; encoding?: string } }>;
      raiMediaFilteredCount?: number;
      raiMediaFilteredReasons?: string[];
    };
  };
}

/** Vertex AI's operation (`POST …:fetchPredictOperation`). */
export interface VertexVideoOperation {
  name: string;
  done?: boolean;
  error?: GoogleStatus;
  response?: {
    '@type'?: string;
    raiMediaFilteredCount?: number;
    raiMediaFilteredReasons?: string[];
    videos?: Array<{ gcsUri?: string; bytesBase64Encoded?: string; mimeType?: string }>;
  };
}

/** Google's error body. */
export interface GoogleErrorBody {
  error: GoogleStatus;
}
