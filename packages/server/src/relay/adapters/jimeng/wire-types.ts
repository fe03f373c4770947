/**
 * Jimeng (即梦) video generation on Volcengine's visual API: `CVSync2AsyncSubmitTask` and
 * `CVSync2AsyncGetResult`, Version 2022-08-31, signed HMAC-SHA256 for region cn-north-1, service
 * `cv` (volcengine.com/docs/85621/1544716 and /1792707; error codes /1298779). No official JS SDK
 * covers them: the fixtures are checked against these types.
 */

export interface JimengSubmitRequest {
  req_key: string;
  prompt?: string;
  seed?: number;
  aspect_ratio?: '16:9' | '4:3' | '1:1' | '3:4' | '9:16' | '21:9';
  /** 121 (5 s) or 241 (10 s) frames at 24 fps. */
  frames?: number;
  image_urls?: string[];
  binary_data_base64?: string[];
}

/** Every answer: `code` 10000 is success (50411/50412 the input's risk review, 50511/50413 the output's, 50429 throttled). */
export interface JimengEnvelope<T> {
  code: number;
  message: string;
  request_id: string;
  status: number;
  time_elapsed: string;
  data: T | null;
}

export interface JimengResult {
  status: 'in_queue' | 'generating' | 'done' | 'not_found' | 'expired';
  video_url?: string;
  aigc_meta_tagged?: boolean;
}
