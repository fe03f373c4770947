import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';

/** A task as Suno-API serialises it (providers-china-and-tasks §9.1): times in epoch seconds, no progress. */
export interface SunoFakeTask {
  id: number;
  created_at: number;
  updated_at: number;
  task_id: string;
  action: 'MUSIC' | 'LYRICS';
  status: 'NOT_START' | 'SUBMITTED' | 'QUEUED' | 'IN_PROGRESS' | 'SUCCESS' | 'FAILURE' | 'UNKNOWN';
  fail_reason: string;
  submit_time: number;
  start_time: number;
  finish_time: number;
  search_item: string;
  data: unknown;
}

export interface FakeSunoOptions {
  port?: number;
  host?: string;
  /** The Bearer secret (SECRET_TOKEN); unset = no auth. */
  secret?: string;
  /** Time between two states of a music task (submitted → queued → streaming → complete). Default 100 ms. */
  stepMs?: number;
  /** A music prompt (or description) containing this word ends in an error clip. Default "explode". */
  failWord?: string;
}

export interface FakeSuno extends ListeningFake {
  tasks: Map<string, SunoFakeTask>;
  requests: Array<{ method: string; path: string; headers: IncomingMessage['headers']; body: Record<string, unknown> | null }>;
  /** While true every request is answered 503. */
  down: boolean;
}

const now = () => Math.floor(Date.now() / 1000);

function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null | 'bad'> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      if (!text) return resolve(null);
      try {
        const v = JSON.parse(text) as unknown;
        resolve(v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : 'bad');
      } catch {
        resolve('bad');
      }
    });
    req.on('error', reject);
  });
}

const send = (res: ServerResponse, status: number, code: string, message: string, data: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8' });
  res.end(JSON.stringify({ code, message, data }));
};

/** Suno clip statuses as the server maps them (submitted, queued, streaming, complete, error). */
function clip(taskId: string, n: number, status: string, body: Record<string, unknown>, base: string, error = '') {
  const id = `${taskId.slice(0, 8)}-clip-${n}`;
  return {
    id,
    status,
    title: typeof body.title === 'string' ? body.title : 'Untitled',
    audio_url: status === 'complete' ? `${base}/audio/${id}.mp3` : '',
    video_url: status === 'complete' ? `${base}/video/${id}.mp4` : '',
    image_url: `${base}/image/${id}.jpg`,
    image_large_url: `${base}/image/${id}-large.jpg`,
    major_model_version: 'v3',
    model_name: typeof body.mv === 'string' ? body.mv : 'chirp-v3-0',
    metadata: {
      tags: typeof body.tags === 'string' ? body.tags : '',
      prompt: typeof body.prompt === 'string' ? body.prompt : '',
      gpt_description_prompt: typeof body.gpt_description_prompt === 'string' ? body.gpt_description_prompt : '',
      duration: status === 'complete' ? 120 : null,
      error_type: error ? 'generation_failed' : null,
      error_message: error || null,
    },
  };
}

/**
 * A Suno-API server on loopback (providers-china-and-tasks §9.1): Bearer secret, the
 * `{code, message, data}` envelope, `POST /suno/submit/{music|lyrics}` (case-insensitive), and
 * `POST /suno/fetch` / `GET /suno/fetch/{id}`. Music tasks move through the clip states over time;
 * lyrics are finished when the submit returns.
 */
export async function startFakeSuno(opts: FakeSunoOptions = {}): Promise<FakeSuno> {
  const stepMs = opts.stepMs ?? 100;
  const failWord = opts.failWord ?? 'explode';
  const tasks = new Map<string, SunoFakeTask>();
  const requests: FakeSuno['requests'] = [];
  const timers = new Set<NodeJS.Timeout>();
  let seq = 0;
  let base = '';

  const later = (fn: () => void, times: number) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, stepMs * times);
    timers.add(t);
  };

  const music = (body: Record<string, unknown>): SunoFakeTask => {
    const taskId = randomUUID();
    const text = `${String(body.prompt ?? '')} ${String(body.gpt_description_prompt ?? '')}`;
    const fails = text.includes(failWord);
    const task: SunoFakeTask = { id: ++seq, created_at: now(), updated_at: now(), task_id: taskId, action: 'MUSIC', status: 'SUBMITTED', fail_reason: '', submit_time: now(), start_time: 0, finish_time: 0, search_item: '', data: [0, 1].map((n) => clip(taskId, n, 'submitted', body, base)) };
    tasks.set(taskId, task);
    const step = (status: SunoFakeTask['status'], clipStatus: string, extra: Partial<SunoFakeTask> = {}, error = '') =>
      Object.assign(task, { status, updated_at: now(), data: [0, 1].map((n) => clip(taskId, n, clipStatus, body, base, error)), ...extra });
    later(() => step('QUEUED', 'queued'), 1);
    later(() => step('IN_PROGRESS', 'streaming', { start_time: now() }), 2);
    later(() => (fails ? step('FAILURE', 'error', { finish_time: now(), fail_reason: 'Unable to generate audio' }, 'Unable to generate audio') : step('SUCCESS', 'complete', { finish_time: now() })), 3);
    return task;
  };

  const lyrics = (body: Record<string, unknown>): SunoFakeTask => {
    const taskId = randomUUID();
    const t = now();
    const text = `[Verse]\n${String(body.prompt)}\n[Chorus]\nla la la`;
    const task: SunoFakeTask = { id: ++seq, created_at: t, updated_at: t, task_id: taskId, action: 'LYRICS', status: 'SUCCESS', fail_reason: '', submit_time: t, start_time: t, finish_time: t, search_item: '', data: { id: taskId, status: 'complete', title: 'Lyrics', text } };
    tasks.set(taskId, task);
    return task;
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const path = new URL(req.url ?? '/', 'http://fake').pathname;
    const body = req.method === 'POST' ? await readJson(req) : null;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body: body === 'bad' ? null : body });
    if (requests.length > 1000) requests.shift();
    if (fake.down) return send(res, 503, 'internal_error', 'service unavailable', null);
    if (opts.secret && req.headers.authorization !== `Bearer ${opts.secret}`) return send(res, 401, 'invalid_request', 'unauthorized secret token', null);
    const one = /^\/suno\/fetch\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && one) {
      const task = tasks.get(decodeURIComponent(one[1]!));
      return task ? send(res, 200, 'success', '', task) : send(res, 400, 'invalid_request', 'task not exist', null);
    }
    if (req.method !== 'POST') return send(res, 404, 'invalid_request', 'not found', null);
    if (body === 'bad' || body === null) return send(res, 400, 'invalid_request', 'invalid request body', null);
    if (path === '/suno/fetch') {
      const ids = Array.isArray(body.ids) ? body.ids : [];
      return send(res, 200, 'success', '', ids.flatMap((id) => (typeof id === 'string' && tasks.has(id) ? [tasks.get(id)] : [])));
    }
    const submit = /^\/suno\/submit\/([^/]+)$/.exec(path);
    if (!submit) return send(res, 404, 'invalid_request', 'not found', null);
    const action = submit[1]!.toUpperCase();
    if (action === 'MUSIC') {
      if (body.continue_clip_id && !body.task_id) return send(res, 400, 'invalid_request', 'continue_clip_id needs task_id', null);
      return send(res, 200, 'success', '', music(body).task_id);
    }
    if (action === 'LYRICS') {
      if (typeof body.prompt !== 'string' || !body.prompt.trim()) return send(res, 400, 'invalid_request', 'prompt is required', null);
      return send(res, 200, 'success', '', lyrics(body).task_id);
    }
    return send(res, 400, 'invalid_request', 'invalid action', null);
  };

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res) => send(res, 500, 'internal_error', 'internal error', null));
  base = listening.url;
  const fake: FakeSuno = {
    ...listening,
    tasks,
    requests,
    down: false,
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await listening.close();
    },
  };
  return fake;
}
