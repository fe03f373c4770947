import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { serveFake, type ListeningFake } from '../http-fake.js';
import { gridButtons, isDataUrl, reply, taskImage, upscaleButtons, type MjFakeTask, type MjSubmitReply } from './tasks.js';

export interface FakeMjOptions {
  port?: number;
  host?: string;
  /** `mj-api-secret` the proxy requires; unset = no auth. */
  secret?: string;
  /** `plus` (trueai-style: buttons, action, modal, shorten, uploads, face swap) or `open` (novicezk). Default plus. */
  kind?: 'plus' | 'open';
  /** Time between two progress steps of a task (SUBMITTED → IN_PROGRESS 50% → done). Default 100 ms. */
  stepMs?: number;
  /** A prompt containing this word is refused with code 24 (banned). Default "forbidden". */
  bannedWord?: string;
  /** A prompt containing this word is accepted and then fails. Default "explode". */
  failWord?: string;
  /** Global notify hook (the proxy's `mj.notify-hook`). */
  notifyHook?: string;
}

export interface MjRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown> | null;
}

export interface FakeMj extends ListeningFake {
  tasks: Map<string, MjFakeTask>;
  requests: MjRecordedRequest[];
  /** While true every request is answered 503 (an upstream that is down). */
  down: boolean;
  /** The next submit is answered with this code (22 queued, 23 queue full, 3 no account, …). */
  nextCode: number | null;
  /** While set, tasks report this image URL (preview and result) instead of their own PNG. */
  imageUrl: string | null;
  /** Extra files served by GET at their path (an SVG, HTML labelled as an image, …). */
  files: Map<string, { contentType: string; body: string | Buffer }>;
}

const CHANGE_TARGETS = new Set(['IMAGINE', 'VARIATION', 'REROLL', 'BLEND', 'HIGH_VARIATION', 'LOW_VARIATION', 'PAN', 'ZOOM']);
const PLUS_ONLY = new Set(['/mj/submit/action', '/mj/submit/modal', '/mj/submit/shorten', '/mj/submit/upload-discord-images', '/mj/insight-face/swap']);

function readJson(req: IncomingMessage): Promise<Record<string, unknown> | null> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    req.on('data', (c: Buffer) => parts.push(c));
    req.on('end', () => {
      const text = Buffer.concat(parts).toString('utf8');
      if (!text) return resolve(null);
      try {
        const v = JSON.parse(text) as unknown;
        resolve(v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
      } catch {
        resolve(null);
      }
    });
    req.on('error', reject);
  });
}

const send = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json;charset=UTF-8' });
  res.end(body === undefined ? '' : JSON.stringify(body));
};

const newId = () => `${Date.now()}${String(Math.floor(Math.random() * 1e6)).padStart(6, '0')}`.slice(0, 16);

/**
 * A Midjourney proxy on loopback (providers-china-and-tasks §8.1, novicezk's open proxy and the
 * trueai "plus" proxy): the submit endpoints with their reply codes, tasks that move
 * SUBMITTED → IN_PROGRESS → SUCCESS | FAILURE over time (progress, image URL, plus buttons), the
 * notify hook on every change, `task/{id}/fetch`, `list-by-condition` (only the ids asked for),
 * `image-seed`, and `mj-api-secret` checked with a 401 and an empty body.
 */
export async function startFakeMj(opts: FakeMjOptions = {}): Promise<FakeMj> {
  const kind = opts.kind ?? 'plus';
  const stepMs = opts.stepMs ?? 100;
  const banned = opts.bannedWord ?? 'forbidden';
  const failWord = opts.failWord ?? 'explode';
  const tasks = new Map<string, MjFakeTask>();
  const requests: MjRecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  let base = '';

  const later = (fn: () => void) => {
    const t = setTimeout(() => {
      timers.delete(t);
      fn();
    }, stepMs);
    timers.add(t);
  };

  const notify = (task: MjFakeTask, hook: string | undefined) => {
    const target = hook || opts.notifyHook;
    if (!target) return;
    fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(task) }).catch(() => undefined);
  };

  /** Starts a task and walks it through its states, one step per `stepMs`. */
  const start = (action: string, prompt: string, fields: { description: string; state?: unknown; notifyHook?: unknown; fails?: boolean; final?: Partial<MjFakeTask> }): MjFakeTask => {
    const id = newId();
    const task: MjFakeTask = {
      id,
      action,
      status: 'SUBMITTED',
      prompt,
      promptEn: prompt,
      description: fields.description,
      state: typeof fields.state === 'string' ? fields.state : '',
      submitTime: Date.now(),
      startTime: 0,
      finishTime: 0,
      imageUrl: '',
      progress: '0%',
      failReason: '',
      properties: {},
    };
    tasks.set(id, task);
    const hook = typeof fields.notifyHook === 'string' ? fields.notifyHook : undefined;
    // novicezk's proxy keeps the task's hook among its properties, and its task JSON shows them.
    if (hook) task.properties.notifyHook = hook;
    later(() => {
      Object.assign(task, { status: 'IN_PROGRESS', startTime: Date.now(), progress: '50%', imageUrl: fake.imageUrl ?? `${base}/attachments/${id}-preview.png` });
      notify(task, hook);
      later(() => {
        if (fields.fails) {
          // The open proxy empties progress on failure.
          Object.assign(task, { status: 'FAILURE', finishTime: Date.now(), progress: '', imageUrl: '', failReason: 'Job failed: the image could not be generated' });
        } else {
          const hash = randomBytes(16).toString('hex');
          Object.assign(task, { status: 'SUCCESS', finishTime: Date.now(), progress: '100%', imageUrl: fake.imageUrl ?? `${base}/attachments/${id}.png`, ...fields.final });
          task.properties = { ...task.properties, messageHash: hash, finalPrompt: task.properties.finalPrompt ?? prompt };
          if (kind === 'plus' && !fields.final?.buttons) task.buttons = action === 'UPSCALE' ? upscaleButtons(hash) : gridButtons(hash);
        }
        notify(task, hook);
      });
    });
    return task;
  };

  const submitted = (task: MjFakeTask): MjSubmitReply => reply(1, '提交成功', task.id, {});

  const promptCheck = (prompt: unknown): MjSubmitReply | null => {
    if (typeof prompt !== 'string' || !prompt.trim()) return reply(4, 'prompt不能为空');
    if (prompt.includes(banned)) return reply(24, '可能包含敏感词', null, { promptEn: prompt, bannedWord: banned });
    return null;
  };

  const change = (body: Record<string, unknown>, action: string, index: number, extra: Record<string, unknown> = {}): MjSubmitReply => {
    const origin = typeof body.taskId === 'string' ? tasks.get(body.taskId) : undefined;
    if (!origin) return reply(3, '关联任务不存在或已失效');
    if (origin.status !== 'SUCCESS' || !CHANGE_TARGETS.has(origin.action)) return reply(4, '关联任务状态错误');
    const short = action === 'UPSCALE' ? 'U' : action === 'VARIATION' ? 'V' : 'R';
    return submitted(
      start(action, origin.prompt, { description: `/${action.toLowerCase()} ${origin.id} ${short}${index}`, state: body.state, notifyHook: body.notifyHook, fails: origin.prompt.includes(failWord) && action !== 'UPSCALE', ...extra }),
    );
  };

  const submit = (path: string, body: Record<string, unknown>): MjSubmitReply | { status: number; body: unknown } => {
    if (kind === 'open' && PLUS_ONLY.has(path)) return { status: 404, body: { error: 'Not Found', status: 404, path } };
    switch (path) {
      case '/mj/submit/imagine': {
        const bad = promptCheck(body.prompt);
        if (bad) return bad;
        if (body.base64Array !== undefined && (!Array.isArray(body.base64Array) || !body.base64Array.every(isDataUrl))) return reply(4, 'base64格式错误');
        const prompt = String(body.prompt);
        return submitted(start('IMAGINE', prompt, { description: `/imagine ${prompt}`, state: body.state, notifyHook: body.notifyHook, fails: prompt.includes(failWord) }));
      }
      case '/mj/submit/change': {
        const action = String(body.action ?? '');
        if (!['UPSCALE', 'VARIATION', 'REROLL'].includes(action)) return reply(4, 'action参数错误');
        const index = Number(body.index ?? 1);
        if (action !== 'REROLL' && !(Number.isInteger(index) && index >= 1 && index <= 4)) return reply(4, 'index参数错误');
        return change(body, action, index);
      }
      case '/mj/submit/simple-change': {
        const m = /^(\S+)\s+([UV])([1-4])$|^(\S+)\s+R$/.exec(String(body.content ?? '').trim());
        if (!m) return reply(4, 'content参数错误');
        if (m[4]) return change({ ...body, taskId: m[4] }, 'REROLL', 0);
        return change({ ...body, taskId: m[1] }, m[2] === 'U' ? 'UPSCALE' : 'VARIATION', Number(m[3]));
      }
      case '/mj/submit/describe': {
        if (!isDataUrl(body.base64)) return reply(4, 'base64格式错误');
        const prompts = ['a cat, watercolor --ar 1:1', 'a cat in the rain', 'a sleeping kitten, soft light', 'a cat portrait, oil painting'];
        return submitted(start('DESCRIBE', '', { description: '/describe', state: body.state, notifyHook: body.notifyHook, final: { prompt: prompts.join('\n\n'), properties: { finalPrompt: prompts.join('\n\n') } } }));
      }
      case '/mj/submit/blend': {
        const images = body.base64Array;
        if (!Array.isArray(images) || images.length < 2 || images.length > 5) return reply(4, 'base64List参数错误');
        if (!images.every(isDataUrl)) return reply(4, 'base64格式错误');
        return submitted(start('BLEND', '', { description: '/blend', state: body.state, notifyHook: body.notifyHook }));
      }
      case '/mj/submit/action': {
        const customId = String(body.customId ?? '');
        const parts = customId.split('::');
        const origin = typeof body.taskId === 'string' ? tasks.get(body.taskId) : undefined;
        if (!origin) return reply(3, '关联任务不存在或已失效');
        if (!origin.buttons?.some((b) => b.customId === customId)) return reply(4, 'customId参数错误');
        const part = parts[1] === 'JOB' ? (parts[2] ?? '') : (parts[1] ?? '');
        if (part === 'CustomZoom' || part === 'Inpaint') {
          // Waits for /submit/modal with a prompt (and a mask for inpaint).
          const t = start(part === 'Inpaint' ? 'INPAINT' : 'CUSTOM_ZOOM', origin.prompt, { description: customId });
          t.status = 'MODAL';
          return reply(21, '窗口等待', t.id, { status: 'MODAL' });
        }
        const action = part.includes('upsample') ? 'UPSCALE' : part === 'variation' ? 'VARIATION' : part.includes('reroll') ? 'REROLL' : part === 'high_variation' ? 'HIGH_VARIATION' : part === 'low_variation' ? 'LOW_VARIATION' : part.includes('pan') ? 'PAN' : 'ZOOM';
        return change({ ...body, taskId: origin.id }, action, Number(parts[3] ?? 1));
      }
      case '/mj/submit/modal': {
        const t = typeof body.taskId === 'string' ? tasks.get(body.taskId) : undefined;
        if (!t) return reply(3, '关联任务不存在或已失效');
        if (t.status !== 'MODAL') return reply(4, '任务状态错误');
        const bad = promptCheck(body.prompt ?? t.prompt);
        if (bad) return bad;
        tasks.delete(t.id);
        return submitted(start(t.action, String(body.prompt ?? t.prompt), { description: t.description }));
      }
      case '/mj/submit/shorten': {
        const bad = promptCheck(body.prompt);
        if (bad) return bad;
        return submitted(start('SHORTEN', String(body.prompt), { description: '/shorten', final: { properties: { finalPrompt: String(body.prompt).split(/\s+/).slice(0, 3).join(' ') } } }));
      }
      case '/mj/submit/upload-discord-images': {
        const images = body.base64Array;
        if (!Array.isArray(images) || !images.length || !images.every(isDataUrl)) return reply(4, 'base64格式错误');
        return reply(1, '上传成功', images.map((_, i) => `${base}/attachments/upload-${Date.now()}-${i}.png`));
      }
      case '/mj/insight-face/swap': {
        if (!isDataUrl(body.sourceBase64) || !isDataUrl(body.targetBase64)) return reply(4, 'base64格式错误');
        return submitted(start('SWAP_FACE', '', { description: '/swap' }));
      }
      default:
        return { status: 404, body: { error: 'Not Found', status: 404, path } };
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const path = url.pathname;
    const file = req.method === 'GET' ? fake.files.get(path) : undefined;
    if (file) {
      res.writeHead(200, { 'content-type': file.contentType });
      res.end(file.body);
      return;
    }
    if (req.method === 'GET' && path.startsWith('/attachments/')) {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(taskImage(path));
      return;
    }
    const body = req.method === 'POST' ? await readJson(req) : null;
    requests.push({ method: req.method ?? '', path, headers: req.headers, body });
    // A long-running demo should not grow without bound.
    if (requests.length > 1000) requests.shift();
    if (fake.down) return send(res, 503, { error: 'Service Unavailable' });
    if (opts.secret && req.headers['mj-api-secret'] !== opts.secret) {
      res.writeHead(401);
      res.end();
      return;
    }
    const fetchMatch = /^\/mj\/task\/([^/]+)\/(fetch|image-seed)$/.exec(path);
    if (req.method === 'GET' && fetchMatch) {
      const task = tasks.get(decodeURIComponent(fetchMatch[1]!));
      if (fetchMatch[2] === 'fetch') return send(res, task ? 200 : 404, task ?? undefined);
      if (kind === 'open') return send(res, 404, { error: 'Not Found', status: 404, path });
      if (!task) return send(res, 200, reply(3, '任务不存在'));
      if (task.status !== 'SUCCESS') return send(res, 200, reply(4, '任务未完成'));
      return send(res, 200, reply(1, '成功', String(parseInt(task.id.slice(-9), 10))));
    }
    if (req.method !== 'POST') return send(res, 404, { error: 'Not Found', status: 404, path });
    if (path === '/mj/task/list-by-condition') {
      const ids = Array.isArray(body?.ids) ? body.ids : [];
      return send(res, 200, ids.flatMap((id) => (typeof id === 'string' && tasks.has(id) ? [tasks.get(id)] : [])));
    }
    if (!body) return send(res, 400, { code: 4, description: '请求体格式错误', result: null });
    if (fake.nextCode !== null && path.startsWith('/mj/submit/')) {
      const code = fake.nextCode;
      fake.nextCode = null;
      if (code === 22) {
        const queued = submit(path, body);
        if ('code' in queued && queued.code === 1) return send(res, 200, reply(22, '排队中，前面还有1个任务', queued.result, { numberOfQueues: 1, discordInstanceId: '1' }));
        return send(res, 200, queued);
      }
      return send(res, 200, reply(code, code === 23 ? '队列已满，请稍后尝试' : code === 3 ? '无可用的账号实例' : '系统异常'));
    }
    const r = submit(path, body);
    if ('status' in r) return send(res, r.status, r.body);
    send(res, 200, r);
  };

  const listening = await serveFake(opts, (req, res) => handle(req, res), (res) => send(res, 500, { code: 9, description: '系统异常', result: null }));
  base = listening.url;
  const fake: FakeMj = {
    ...listening,
    tasks,
    requests,
    down: false,
    nextCode: null,
    imageUrl: null,
    files: new Map(),
    close: async () => {
      for (const t of timers) clearTimeout(t);
      timers.clear();
      await listening.close();
    },
  };
  return fake;
}
