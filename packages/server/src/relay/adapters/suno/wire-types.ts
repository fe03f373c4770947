/**
 * Suno-API's wire format (Suno-API `api.go`, `model.go`, `entity/po/*`, `common/errs.go`;
 * summarised in providers-china-and-tasks §9.1). No official SDK exists: the fixtures are checked
 * against these types.
 */

/** Every reply, success or not. */
export interface SunoEnvelope<T> {
  code: 'success' | 'invalid_request' | 'internal_error';
  message: string;
  data: T;
}

/** `POST /suno/submit/music`. */
export interface SunoMusicRequest {
  prompt?: string;
  mv?: string;
  title?: string;
  tags?: string;
  gpt_description_prompt?: string;
  task_id?: string;
  continue_at?: number;
  continue_clip_id?: string;
  make_instrumental?: boolean;
}

/** `POST /suno/submit/lyrics`. */
export interface SunoLyricsRequest {
  prompt: string;
}

/** A music clip as Suno returns it (two per task). */
export interface SunoClip {
  id: string;
  video_url: string;
  audio_url: string;
  image_url: string;
  image_large_url: string;
  major_model_version: string;
  model_name: string;
  status: string;
  title: string;
  created_at: string;
  metadata: {
    tags: string;
    prompt: string;
    gpt_description_prompt: string;
    type: string;
    duration: number | null;
    error_type: string | null;
    error_message: string | null;
  };
}

export type SunoTaskStatus = 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'FAILURE' | 'SUCCESS' | 'UNKNOWN';

/** A task of `POST /suno/fetch` (times in epoch seconds; no progress field). */
export interface SunoTask {
  id: number;
  created_at: number;
  updated_at: number;
  task_id: string;
  action: 'MUSIC' | 'LYRICS';
  status: SunoTaskStatus;
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  search_item: string;
  data: SunoClip[] | { id: string; status: string; title: string; text: string };
}
