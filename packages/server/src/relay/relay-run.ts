import type { Lang } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RelayContext } from './relay-context.js';
import type { UpstreamError } from './adapters/types.js';
import type { Price } from './billing/pricing.js';
import { RelayError } from './relay-error.js';
import type { RelayInput } from './request-parse.js';
import type { RelayAuth } from './token-auth.js';

/** A clamped request's running spend: streams are cut when it reaches the limit. */
export interface Meter {
  /** What the request may spend in all (its reservation). */
  limit: number;
  promptTokens: number;
  completionTokens: number;
}

/** One relayed request from authentication to the final byte. */
export interface Run {
  ctx: RelayContext;
  req: FastifyRequest;
  reply: FastifyReply;
  lang: Lang;
  requestId: string;
  startedAt: number;
  auth: RelayAuth;
  input: RelayInput;
  price: Price;
  reserved: number;
  /** The subscription paying for the reservation (0 or absent: the wallet) and how many windows it holds (relay-windows.ts). */
  paidBy?: number;
  windows?: number;
  /** Set when the reservation was clamped: the max_tokens sent upstream instead of the client's. */
  maxTokensOverride?: number;
  /** Set when the reservation was clamped: streams are metered against it. */
  meter?: Meter;
  /** Set when the reservation was clamped: the low-balance error for a body that needs a cap of `minTokens` or more. */
  clampRefusal?: (minTokens: number) => RelayError;
  used: number[];
  /** Fields added to the consume log's `other` (a realtime response adds `ws: true`). */
  logOther?: Record<string, unknown>;
}

/** Sets (or, with undefined, removes) one field of the consume log's `other` for this run. */
export function noteLogOther(run: Run, key: string, value: unknown): void {
  const { [key]: _earlier, ...rest } = run.logOther ?? {};
  run.logOther = value === undefined ? rest : { ...rest, [key]: value };
}

export type Attempt = { ok: true } | { ok: false; error: RelayError; retryable: boolean; upstream?: UpstreamError };

/** A failed attempt: the error the client would see, whether another channel may try, and the upstream's own judgement. */
export function failure(status: number, type: string, code: string | null, message: string, retryable: boolean, upstream?: UpstreamError): Attempt {
  return { ok: false, error: new RelayError(status, type, code, message, upstream?.param ?? null, false), retryable, upstream };
}
