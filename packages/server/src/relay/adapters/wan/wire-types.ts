/**
 * DashScope's asynchronous video synthesis (Alibaba Wan / 通义万相): `POST
 * /api/v1/services/aigc/video-generation/video-synthesis` with `X-DashScope-Async: enable`, then
 * `GET /api/v1/tasks/{task_id}` (help.aliyun.com/zh/model-studio/text-to-video-api-reference and
 * image-to-video-api-reference). No official JS SDK: the fixtures are checked against these types.
 */

export interface WanVideoRequest {
  model: string;
  input: { prompt?: string; negative_prompt?: string; img_url?: string };
  parameters?: {
    /** Text to video: `width*height`. */
    size?: string;
    /** Image to video: `480P`, `720P` or `1080P`. */
    resolution?: string;
    duration?: number;
    prompt_extend?: boolean;
    seed?: number;
    watermark?: boolean;
  };
}

export type WanTaskStatus = 'PENDING' | 'RUNNING' | 'SUCCEEDED' | 'FAILED' | 'CANCELED' | 'UNKNOWN';

export interface WanTaskOutput {
  task_id: string;
  task_status: WanTaskStatus;
  submit_time?: string;
  scheduled_time?: string;
  end_time?: string;
  video_url?: string;
  orig_prompt?: string;
  actual_prompt?: string;
  code?: string;
  message?: string;
}

export interface WanTaskReply {
  request_id: string;
  output: WanTaskOutput;
  usage?: { video_duration?: number; video_ratio?: string; video_count?: number };
}

export interface DashScopeError {
  request_id: string;
  code: string;
  message: string;
}
