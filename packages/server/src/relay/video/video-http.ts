import type { ChannelTarget } from '../adapters/types.js';
import { upstreamSideCall } from '../upstream.js';
import { VideoUpstreamError } from './video-types.js';

/** A video upstream's answer: its status, its body as text and, when it is JSON, parsed. */
export interface VideoReply {
  status: number;
  text: string;
  json: unknown;
}

/** The channel's base URL without trailing slashes, or the provider's default. */
export function baseUrlOf(target: Pick<ChannelTarget, 'baseUrl'>, fallback: string): string {
  return (target.baseUrl || fallback).replace(/\/+$/, '');
}

/**
 * One JSON exchange with a video upstream, through the channel target's guard (when no root placed
 * it), no redirects, capped in time. `sign` sees the final method, URL, headers and body and returns
 * the headers to add (a signature, a token).
 */
export async function videoCall(
  target: Pick<ChannelTarget, 'guard'>,
  req: { method: 'GET' | 'POST' | 'DELETE'; url: string; headers?: Record<string, string>; body?: unknown; timeoutMs: number },
  sign?: (r: { method: string; url: string; headers: Record<string, string>; body: string }) => Record<string, string>,
): Promise<VideoReply> {
  const body = req.body === undefined ? '' : JSON.stringify(req.body);
  const headers: Record<string, string> = { accept: 'application/json', ...(req.body !== undefined ? { 'content-type': 'application/json' } : {}), ...req.headers };
  const signed = sign ? { ...headers, ...sign({ method: req.method, url: req.url, headers, body }) } : headers;
  const res = await upstreamSideCall(req.url, { method: req.method, headers: signed, body: req.body === undefined ? undefined : body, timeoutMs: req.timeoutMs, guard: target.guard });
  let json: unknown = null;
  try {
    json = res.text ? (JSON.parse(res.text) as unknown) : null;
  } catch {
    json = null;
  }
  return { status: res.status, text: res.text, json };
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const textOf = (v: unknown): string => (typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '');

/** A refusal whose body the provider did not shape as it documents: the status and the start of the body. */
export function unexpected(r: VideoReply): VideoUpstreamError {
  return new VideoUpstreamError(r.status >= 400 ? r.status : 502, 'bad_response', `the upstream answered ${r.status}: ${r.text.slice(0, 200)}`);
}

/** A `data:<mime>;base64,<data>` URL's parts, or undefined for anything else (an http URL). */
export function dataUrlParts(url: string): { mimeType: string; base64: string } | undefined {
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  return m ? { mimeType: m[1]!, base64: m[2]!.replace(/\s+/g, '') } : undefined;
}
