import type { Lang } from '@modelgate/shared';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import type { UpstreamError } from './adapters/types.js';
import type { Price } from './billing/pricing.js';
import type { RelayError } from './relay-error.js';
import type { RelayInput } from './request-parse.js';
import type { Meter } from './relay-reserve.js';
import type { RelayAuth } from './token-auth.js';

/** One relayed request from authentication to the final byte. */
export interface Run {
  ctx: AppContext;
  req: FastifyRequest;
  reply: FastifyReply;
  lang: Lang;
  requestId: string;
  startedAt: number;
  auth: RelayAuth;
  input: RelayInput;
  price: Price;
  reserved: number;
  /** Set when the reservation was clamped: the max_tokens sent upstream instead of the client's. */
  maxTokensOverride?: number;
  /** Set when the reservation was clamped: streams are metered against it. */
  meter?: Meter;
  used: number[];
}

export type Attempt = { ok: true } | { ok: false; error: RelayError; retryable: boolean; upstream?: UpstreamError };
