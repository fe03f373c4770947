/**
 * Volcengine Ark's video generation tasks (Doubao Seedance): "创建视频生成任务"
 * `POST /api/v3/contents/generations/tasks` and "查询视频生成任务" `GET …/tasks/{id}`
 * (volcengine.com/docs/82379/1520757 and /1521309), with Ark's error object. No official JS SDK
 * covers them: the fixtures are checked against these types.
 */

export type ArkContent =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string }; role?: 'first_frame' | 'last_frame' | 'reference_image' };

export interface ArkVideoRequest {
  model: string;
  content: ArkContent[];
  callback_url?: string;
  resolution?: '480p' | '720p' | '1080p';
  ratio?: '16:9' | '4:3' | '1:1' | '3:4' | '9:16' | '21:9' | 'adaptive';
  duration?: number;
  seed?: number;
  camera_fixed?: boolean;
  watermark?: boolean;
  return_last_frame?: boolean;
}

export interface ArkVideoTask {
  id: string;
  model: string;
  status: 'queued' | 'running' | 'cancelled' | 'succeeded' | 'failed';
  error: { code: string; message: string } | null;
  content?: { video_url: string; last_frame_url?: string };
  usage?: { completion_tokens: number; total_tokens: number };
  created_at: number;
  updated_at: number;
  seed?: number;
  resolution?: string;
  ratio?: string;
  duration?: number;
  framespersecond?: number;
}

export interface ArkError {
  error: { code: string; message: string; param?: string; type?: string };
}
