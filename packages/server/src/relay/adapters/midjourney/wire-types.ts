/**
 * The Midjourney proxy's wire format (novicezk midjourney-proxy `docs/api.md` and its `dto/`,
 * trueai midjourney-proxy-plus `Dto/`; summarised in providers-china-and-tasks §8.1). There is no
 * official SDK: these types are what the fixtures are checked against.
 */

/** `POST /mj/submit/imagine` (SubmitImagineDTO). */
export interface MjImagineRequest {
  prompt: string;
  base64Array?: string[];
  notifyHook?: string;
  state?: string;
  /** Plus only. */
  botType?: 'MID_JOURNEY' | 'NIJI_JOURNEY';
  accountFilter?: { instanceId?: string; modes?: string[]; remark?: string };
}

/** Every submit's reply (SubmitResultVO), always HTTP 200; errors keep the envelope. */
export interface MjSubmitReply {
  code: number;
  description: string;
  /** The new task id; an array of URLs for upload-discord-images; null on an error. */
  result: string | string[] | null;
  properties?: Record<string, unknown>;
}

export type MjTaskStatus = 'NOT_START' | 'SUBMITTED' | 'MODAL' | 'IN_PROGRESS' | 'FAILURE' | 'SUCCESS';

/** A plus proxy's button on a finished task. */
export interface MjButton {
  customId: string;
  emoji: string;
  label: string;
  type: number;
  style: number;
}

/** A Task, as `GET /mj/task/{id}/fetch`, `list-by-condition` and the notify hook send it (times in epoch ms). */
export interface MjTask {
  id: string;
  action: string;
  status: MjTaskStatus;
  prompt: string;
  promptEn: string;
  description: string;
  state: string;
  submitTime: number;
  startTime: number;
  finishTime: number;
  imageUrl: string;
  progress: string;
  failReason: string;
  properties: Record<string, unknown>;
  /** Plus only. */
  buttons?: MjButton[];
}

/** `POST /mj/task/list-by-condition`. */
export interface MjListByConditionRequest {
  ids: string[];
}
