import type { FastifyReply, FastifyRequest } from 'fastify';
import { errorBodyFor } from './formats/registry.js';
import type { WireFormat } from './formats/types.js';
import type { RelayError } from './relay-error.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The wire format a relay route's caller speaks: its errors are answered in it (OpenAI's when unset). */
    relayFormat?: WireFormat;
  }
}

/** The caller's wire format of the route a request matched. */
export function routeFormat(req: FastifyRequest): WireFormat {
  return req.routeOptions.config.relayFormat ?? 'openai-chat';
}

/**
 * Headers of a reply written on the raw socket (after hijack): what the route's onRequest hook and
 * relay() set through fastify, which a hijacked reply no longer applies.
 */
export function rawHeaders(requestId: string, extra: Record<string, string | number>): Record<string, string | number> {
  return { 'access-control-allow-origin': '*', 'x-oneapi-request-id': requestId, ...extra };
}

/** A relay error as the caller's format writes errors (OpenAI's error object, Anthropic's `{type:"error"}`, …). */
export function errorJson(format: WireFormat, err: RelayError, suffix = ''): Record<string, unknown> {
  return errorBodyFor(format, { status: err.status, type: err.type, code: err.code, param: err.param, message: err.message + suffix });
}

/** Answers an error, through fastify or, after a hijack, on the raw socket. */
export function sendError(reply: FastifyReply, requestId: string, format: WireFormat, err: RelayError, withRequestId: boolean): void {
  const body = JSON.stringify(errorJson(format, err, withRequestId ? ` (request id: ${requestId})` : ''));
  if (!reply.sent && !reply.raw.headersSent && !(reply as { hijacked?: boolean }).hijacked) {
    void reply.code(err.status).header('content-type', 'application/json').send(body);
    return;
  }
  const raw = reply.raw;
  if (raw.destroyed || raw.writableEnded) return;
  if (!raw.headersSent) raw.writeHead(err.status, rawHeaders(requestId, { 'content-type': 'application/json' }));
  raw.end(raw.headersSent && raw.getHeader('content-type') === 'application/json' ? body : undefined);
}

export function hijack(reply: FastifyReply): void {
  if (!(reply as { hijacked?: boolean }).hijacked) reply.hijack();
}
