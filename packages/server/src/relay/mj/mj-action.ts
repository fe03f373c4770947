import type { MjAction } from '@modelgate/shared';

/** A Midjourney proxy reply (providers-china-and-tasks §8.1): errors keep the same envelope. */
export interface MjReplyBody {
  code: number;
  description: string;
  result: unknown;
  properties?: Record<string, unknown>;
}

/** Codes of the proxy (ReturnCode): 3 not found, 4 validation error, 9 system error, 24 banned prompt. */
export const MJ_NOT_FOUND = 3;
export const MJ_VALIDATION = 4;
export const MJ_SYSTEM = 9;
/** The proxy's rate limit; answered as HTTP 429. */
export const MJ_RATE_LIMITED = 30;

export class MjError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    /** Sent as `Retry-After` (a periodic limit's refill). */
    readonly retryAfterSec?: number,
  ) {
    super(message);
  }

  body(): MjReplyBody {
    return { code: this.code, description: this.message, result: null };
  }
}

export const invalid = (message: string) => new MjError(400, MJ_VALIDATION, message);

/** What a submit route asks for: the action (its price and channel), and the task it continues, if any. */
export interface MjIntent {
  action: MjAction;
  /** The origin task (change, simple-change, action, modal, image-seed): routed to its channel. */
  originId?: string;
}

/** `MJ::JOB::upsample::1::<hash>` → the action a button performs (§8.2 table). */
export function actionOfCustomId(customId: string): MjAction | null {
  const parts = customId.split('::');
  const part = (parts[1] === 'JOB' ? parts[2] : parts[1]) ?? '';
  if (part.includes('upsample')) return 'UPSCALE';
  if (part === 'variation') return 'VARIATION';
  if (part === 'low_variation') return 'LOW_VARIATION';
  if (part === 'high_variation') return 'HIGH_VARIATION';
  if (part.includes('pan')) return 'PAN';
  if (part.includes('reroll')) return 'REROLL';
  if (part === 'Outpaint') return 'ZOOM';
  if (part === 'CustomZoom') return 'CUSTOM_ZOOM';
  if (part === 'Inpaint') return 'INPAINT';
  return null;
}

const DATA_URL = /^data:image\/[a-z+.-]+;base64,[A-Za-z0-9+/]+=*$/;

/** Images are sent as `data:image/png;base64,…`; a malformed one is refused before anything is charged. */
function checkImages(value: unknown, field: string, min: number, max: number): void {
  const list = Array.isArray(value) ? value : value === undefined ? [] : null;
  if (!list || list.length < min || list.length > max) throw invalid(`${field}: ${min}..${max} images expected`);
  for (const v of list) if (typeof v !== 'string' || !DATA_URL.test(v)) throw invalid(`${field}: malformed base64 image (expected data:image/…;base64,…)`);
}

const str = (v: unknown): string => (typeof v === 'string' ? v.trim() : '');

function needPrompt(body: Record<string, unknown>): void {
  if (!str(body.prompt)) throw invalid('prompt: required');
}

/** Reads the intent of a submit route from its path and body, refusing bad input with the proxy's code 4. */
export function intentOf(path: string, body: Record<string, unknown>): MjIntent {
  switch (path) {
    case '/submit/imagine':
      needPrompt(body);
      checkImages(body.base64Array, 'base64Array', 0, 5);
      return { action: 'IMAGINE' };
    case '/submit/change': {
      const action = str(body.action);
      if (action !== 'UPSCALE' && action !== 'VARIATION' && action !== 'REROLL') throw invalid(`unknown_action: ${action || '(empty)'}`);
      if (!str(body.taskId)) throw invalid('taskId: required');
      const index = body.index ?? 1;
      if (action !== 'REROLL' && !(Number.isInteger(index) && Number(index) >= 1 && Number(index) <= 4)) throw invalid('index: 1..4 expected');
      return { action, originId: str(body.taskId) };
    }
    case '/submit/simple-change': {
      const m = /^(\S+)\s+(?:([UV])[1-4]|R)$/.exec(str(body.content));
      if (!m) throw invalid('content: expected "<taskId> U1..U4|V1..V4|R"');
      return { action: m[2] === 'U' ? 'UPSCALE' : m[2] === 'V' ? 'VARIATION' : 'REROLL', originId: m[1] };
    }
    case '/submit/describe':
      checkImages([body.base64].filter((v) => v !== undefined), 'base64', 1, 1);
      return { action: 'DESCRIBE' };
    case '/submit/blend':
      checkImages(body.base64Array, 'base64Array', 2, 5);
      if (body.dimensions !== undefined && !['PORTRAIT', 'SQUARE', 'LANDSCAPE'].includes(String(body.dimensions))) throw invalid('dimensions: PORTRAIT, SQUARE or LANDSCAPE');
      return { action: 'BLEND' };
    case '/submit/action': {
      const customId = str(body.customId);
      if (!str(body.taskId)) throw invalid('taskId: required');
      const action = actionOfCustomId(customId);
      if (!action) throw invalid(`unknown_action: ${customId || '(empty)'}`);
      return { action, originId: str(body.taskId) };
    }
    case '/submit/modal':
      if (!str(body.taskId)) throw invalid('taskId: required');
      if (body.maskBase64 !== undefined) checkImages([body.maskBase64], 'maskBase64', 1, 1);
      return { action: 'MODAL', originId: str(body.taskId) };
    case '/submit/shorten':
      needPrompt(body);
      return { action: 'SHORTEN' };
    case '/submit/upload-discord-images':
      checkImages(body.base64Array, 'base64Array', 1, 5);
      return { action: 'UPLOAD' };
    case '/insight-face/swap':
      checkImages([body.sourceBase64].filter((v) => v !== undefined), 'sourceBase64', 1, 1);
      checkImages([body.targetBase64].filter((v) => v !== undefined), 'targetBase64', 1, 1);
      return { action: 'SWAP_FACE' };
    default:
      throw new MjError(404, MJ_NOT_FOUND, `unknown route: ${path}`);
  }
}

/** Codes that mean the upstream took the job: the only submits that are charged (§8.3). */
export function chargeable(action: MjAction, code: number): boolean {
  if (action === 'SWAP_FACE') return code === 1;
  return code === 1 || code === 21 || code === 22;
}

/** The prompt without the speed flags (MjModeClearEnabled). */
export function clearMode(prompt: string): string {
  return prompt.replace(/\s*--(fast|relax|turbo)\b/g, '').trim();
}
