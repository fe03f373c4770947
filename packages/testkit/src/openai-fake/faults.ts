import type { OpenAIErrorBody } from './context.js';
import { documentedErrorKind } from './documented.js';
import type { FakeFault } from './types.js';
import { isRecord } from './util.js';

export const FAULT_HEADER = 'x-fake-fault';

const NUMBER_KEYS = ['status', 'delayMs', 'chunkDelayMs', 'silenceAfterChunks', 'disconnectAfterChunks', 'times'] as const;
const STRING_KEYS = ['message', 'type', 'body', 'contentType'] as const;
const NULLABLE_STRING_KEYS = ['code', 'param'] as const;
const BOOLEAN_KEYS = ['malformedJson', 'omitUsage'] as const;
const LIST_KEYS = ['models', 'paths'] as const;

/** Validates an untrusted fault (header JSON, control endpoint); throws with the reason. */
export function parseFault(value: unknown): FakeFault {
  if (!isRecord(value)) throw new Error('fault must be a JSON object');
  for (const [key, raw] of Object.entries(value)) {
    if ((NUMBER_KEYS as readonly string[]).includes(key)) {
      if (typeof raw !== 'number' || !Number.isFinite(raw) || raw < 0) throw new Error(`${key} must be a number ≥ 0`);
    } else if ((STRING_KEYS as readonly string[]).includes(key)) {
      if (typeof raw !== 'string') throw new Error(`${key} must be a string`);
    } else if ((NULLABLE_STRING_KEYS as readonly string[]).includes(key)) {
      if (raw !== null && typeof raw !== 'string') throw new Error(`${key} must be a string or null`);
    } else if ((BOOLEAN_KEYS as readonly string[]).includes(key)) {
      if (typeof raw !== 'boolean') throw new Error(`${key} must be a boolean`);
    } else if ((LIST_KEYS as readonly string[]).includes(key)) {
      if (!Array.isArray(raw) || !raw.every((v) => typeof v === 'string')) throw new Error(`${key} must be a string array`);
    } else if (key === 'retryAfter') {
      if (typeof raw !== 'number' && typeof raw !== 'string') throw new Error('retryAfter must be a number or string');
    } else {
      throw new Error(`unknown fault field "${key}"`);
    }
  }
  return value as FakeFault;
}

/** Whether `fault` targets this request (its `models` / `paths` filters). */
export function faultMatches(fault: FakeFault, route: string, model: string | undefined): boolean {
  if (fault.paths && !fault.paths.includes(route)) return false;
  if (fault.models && (model === undefined || !fault.models.includes(model))) return false;
  return true;
}

/**
 * Tracks the instance fault and the `times` budgets. Header faults are counted per distinct
 * header value, because a header is the only identity a per-request fault has.
 */
export class FaultBook {
  private instance: FakeFault | null = null;
  private instanceUses = 0;
  private readonly headerUses = new Map<string, number>();

  setInstance(fault: FakeFault | null): void {
    this.instance = fault;
    this.instanceUses = 0;
  }

  reset(): void {
    this.headerUses.clear();
    this.setInstance(null);
  }

  /** The fault to apply to a request, consuming one use of its `times` budget. */
  take(headerValue: string | undefined, headerFault: FakeFault | undefined, route: string, model: string | undefined): FakeFault | undefined {
    if (headerFault && headerValue !== undefined) {
      if (!faultMatches(headerFault, route, model)) return undefined;
      const used = this.headerUses.get(headerValue) ?? 0;
      if (headerFault.times !== undefined && used >= headerFault.times) return undefined;
      this.headerUses.set(headerValue, used + 1);
      return headerFault;
    }
    const fault = this.instance;
    if (!fault || !faultMatches(fault, route, model)) return undefined;
    if (fault.times !== undefined && this.instanceUses >= fault.times) return undefined;
    this.instanceUses += 1;
    return fault;
  }
}

/** Realistic OpenAI error bodies per status, so a bare `{status}` fault looks like the real thing. */
export function defaultErrorFor(status: number): OpenAIErrorBody {
  switch (status) {
    case 400:
      return { message: 'Invalid request.', type: 'invalid_request_error', param: null, code: null };
    case 401:
      return { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' };
    case 403:
      return { message: 'Your account is not authorized to make this request.', type: 'invalid_request_error', param: null, code: 'unsupported_country_region_territory' };
    case 404:
      return { message: 'The model does not exist or you do not have access to it.', type: documentedErrorKind(404)?.type ?? 'invalid_request_error', param: null, code: documentedErrorKind(404)?.code ?? 'model_not_found' };
    case 429:
      // The documented rate-limit error's type and code (error.rate-limit); a generic message.
      return { message: 'Rate limit reached for requests. Please try again later.', type: documentedErrorKind(429)?.type ?? 'requests', param: null, code: documentedErrorKind(429)?.code ?? 'rate_limit_exceeded' };
    case 503:
      return { message: 'The engine is currently overloaded, please try again later.', type: 'server_error', param: null, code: null };
    default:
      return status >= 500
        ? { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null }
        : { message: `Fake upstream error ${status}.`, type: 'invalid_request_error', param: null, code: null };
  }
}

export function faultError(fault: FakeFault & { status: number }): OpenAIErrorBody {
  const base = defaultErrorFor(fault.status);
  return {
    message: fault.message ?? base.message,
    type: fault.type ?? base.type,
    param: fault.param !== undefined ? fault.param : base.param,
    code: fault.code !== undefined ? fault.code : base.code,
  };
}
