import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { readBody } from '../http-fake.js';
import { FAKE_MP4 } from './sample-video.js';

export { FAKE_MP4 } from './sample-video.js';

/**
 * What every video provider fake shares (issue 34): a job that moves with time through the
 * provider's states (queued for one step, running for two, then done), the words in a prompt that
 * steer it — `explode` ends in a generation failure, `forbidden` is refused at submit by the
 * provider's content policy — and the finished video's bytes. Each provider's fake speaks its own
 * wire format around these (`<provider>-video-fake/`).
 */
export interface VideoFakeOptions {
  port?: number;
  host?: string;
  /** The accepted key (each provider checks it its own way); unset = any. */
  key?: string;
  /** Time between two states of a job. Default 100 ms. */
  stepMs?: number;
}

export type FakeJobPhase = 'queued' | 'running' | 'succeeded' | 'failed';

export interface FakeVideoJob {
  id: string;
  model: string;
  prompt: string;
  seconds: number;
  size: string;
  /** The submit body as received. */
  body: unknown;
  createdAt: number;
  /** Set by a test to pin a job's phase regardless of time. */
  forced?: FakeJobPhase;
}

/** The recorded requests and the switches a test turns (shared by every video fake). */
export interface VideoFakeControls {
  jobs: Map<string, FakeVideoJob>;
  requests: Array<{ method: string; path: string; query: URLSearchParams; headers: IncomingMessage['headers']; body: unknown }>;
  /** While true every request is answered 503. */
  down: boolean;
  /** The URL finished jobs point at instead of the fake's own (an attack: loopback, cloud metadata). */
  videoUrl?: string;
  /** The Content-Type and body the video route serves instead of the MP4 (an attack: text/html). */
  content?: { type: string; body: Buffer };
  /** How many times the video bytes were downloaded. */
  downloads: number;
}

export const FAIL_WORD = 'explode';
export const MODERATION_WORD = 'forbidden';

/** A job's phase now: queued for one step, running for two, then finished (failed when its prompt says `explode`). */
export function phaseOf(job: FakeVideoJob, stepMs: number, now = Date.now()): FakeJobPhase {
  if (job.forced) return job.forced;
  const steps = (now - job.createdAt) / stepMs;
  if (steps < 1) return 'queued';
  if (steps < 3) return 'running';
  return job.prompt.includes(FAIL_WORD) ? 'failed' : 'succeeded';
}

/** Progress while running, 0–99. */
export function progressOf(job: FakeVideoJob, stepMs: number, now = Date.now()): number {
  const p = phaseOf(job, stepMs, now);
  if (p === 'queued') return 0;
  if (p !== 'running') return 100;
  return Math.min(99, Math.max(1, Math.round((((now - job.createdAt) / stepMs - 1) / 2) * 100)));
}

export function newControls(): VideoFakeControls {
  return { jobs: new Map(), requests: [], down: false, downloads: 0 };
}

export function newJob(c: VideoFakeControls, fields: Omit<FakeVideoJob, 'id' | 'createdAt'> & { id?: string }): FakeVideoJob {
  const job: FakeVideoJob = { ...fields, id: fields.id ?? randomUUID(), createdAt: Date.now() };
  c.jobs.set(job.id, job);
  return job;
}

/** Reads and records one request (JSON body parsed when it parses). */
export async function record(c: VideoFakeControls, req: IncomingMessage): Promise<{ url: URL; body: unknown; text: string }> {
  const url = new URL(req.url ?? '/', 'http://fake');
  const text = req.method === 'GET' || req.method === 'DELETE' ? '' : await readBody(req);
  let body: unknown = undefined;
  try {
    body = text ? (JSON.parse(text) as unknown) : undefined;
  } catch {
    body = undefined;
  }
  c.requests.push({ method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body });
  if (c.requests.length > 1000) c.requests.shift();
  return { url, body, text };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify(body));
}

/** The video route of a fake: the MP4, or what a test swapped in. */
export function sendVideo(c: VideoFakeControls, res: ServerResponse): void {
  c.downloads += 1;
  const type = c.content?.type ?? 'video/mp4';
  const body = c.content?.body ?? FAKE_MP4;
  res.writeHead(200, { 'content-type': type, 'content-length': String(body.length) });
  res.end(body);
}

export const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
export const text = (v: unknown): string => (typeof v === 'string' ? v : '');
