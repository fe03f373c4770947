/**
 * Vidu's enterprise API v2 (platform.vidu.com/docs: text-to-video, image-to-video, start-end to
 * video, "Get Generation" `GET /ent/v2/tasks/{id}/creations`; `Authorization: Token {key}`). No
 * official JS SDK: the fixtures are checked against these types.
 */

export interface ViduVideoRequest {
  model: string;
  prompt?: string;
  /** Image to video: URLs or base64 data URLs (one; two for start-end). */
  images?: string[];
  style?: 'general' | 'anime';
  duration?: number;
  seed?: number;
  aspect_ratio?: '16:9' | '9:16' | '1:1';
  resolution?: '360p' | '720p' | '1080p';
  movement_amplitude?: 'auto' | 'small' | 'medium' | 'large';
  bgm?: boolean;
  callback_url?: string;
}

export type ViduState = 'created' | 'queueing' | 'processing' | 'success' | 'failed';

export interface ViduSubmitReply {
  task_id: string;
  state: ViduState;
  model: string;
  prompt?: string;
  images?: string[];
  duration: number;
  seed: number;
  aspect_ratio?: string;
  resolution: string;
  movement_amplitude?: string;
  created_at: string;
  credits?: number;
}

export interface ViduCreations {
  id: string;
  state: ViduState;
  err_code: string;
  credits?: number;
  payload?: string;
  creations: Array<{ id: string; url: string; cover_url: string; watermarked_url?: string }>;
}

export interface ViduError {
  code: number;
  reason: string;
  message: string;
  metadata?: Record<string, string>;
}
