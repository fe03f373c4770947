/**
 * MiniMax's video generation (Hailuo): `POST /v1/video_generation`, `GET
 * /v1/query/video_generation?task_id=` and `GET /v1/files/retrieve?file_id=` for the download URL
 * (platform.minimaxi.com/document/video_generation, /files; errors in `base_resp`). No official JS
 * SDK: the fixtures are checked against these types.
 */

export interface BaseResp {
  /** 0 success; 1002 rate limited, 1004 authentication, 1008 balance, 1026 sensitive input, 1027 sensitive output, 2013 invalid parameters. */
  status_code: number;
  status_msg: string;
}

export interface HailuoVideoRequest {
  model: string;
  prompt?: string;
  duration?: number;
  resolution?: '512P' | '720P' | '768P' | '1080P';
  first_frame_image?: string;
  last_frame_image?: string;
  prompt_optimizer?: boolean;
  callback_url?: string;
}

export interface HailuoSubmitReply {
  task_id: string;
  base_resp: BaseResp;
}

export interface HailuoQueryReply {
  task_id: string;
  status: 'Preparing' | 'Queueing' | 'Processing' | 'Success' | 'Fail';
  file_id?: string;
  video_width?: number;
  video_height?: number;
  base_resp: BaseResp;
}

export interface HailuoFileReply {
  file: { file_id: string | number; bytes: number; created_at: number; filename: string; purpose: string; download_url: string };
  base_resp: BaseResp;
}
