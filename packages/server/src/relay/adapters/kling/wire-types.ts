/**
 * Kling's video API (app.klingai.com/global/dev/document-api: "Text to Video", "Image to Video",
 * the task query, "General Information" for the JWT and the error codes). No official SDK: the
 * fixtures are checked against these types.
 */

export interface KlingVideoRequest {
  model_name?: string;
  prompt?: string;
  negative_prompt?: string;
  cfg_scale?: number;
  mode?: 'std' | 'pro';
  aspect_ratio?: '16:9' | '9:16' | '1:1';
  duration?: '5' | '10';
  /** Image to video: a URL or raw base64 (no `data:` prefix). */
  image?: string;
  image_tail?: string;
  camera_control?: { type: string; config?: Record<string, number> };
  callback_url?: string;
  external_task_id?: string;
}

export type KlingTaskStatus = 'submitted' | 'processing' | 'succeed' | 'failed';

export interface KlingTask {
  task_id: string;
  task_status: KlingTaskStatus;
  task_status_msg?: string;
  task_info?: { external_task_id?: string };
  task_result?: { videos: Array<{ id: string; url: string; duration: string }> };
  created_at: number;
  updated_at: number;
}

/** Every answer: `code` 0 is success; 1000–1004 authentication, 1100s the account, 1200s the request, 1300s the platform's policy (1301 content security). */
export interface KlingEnvelope<T> {
  code: number;
  message: string;
  request_id: string;
  data?: T;
}
