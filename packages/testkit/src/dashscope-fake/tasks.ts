import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** An image task as the fake keeps it. */
interface Task {
  id: string;
  n: number;
  size: string;
  prompt: string;
  polls: number;
  submitted: string;
  requestId: string;
}

const IMAGE_MODELS = new Set(['wanx-v1', 'wanx2.1-t2i-turbo', 'wanx2.1-t2i-plus']);
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
/** DashScope writes times as `YYYY-MM-DD HH:mm:ss.SSS` (China time in production; UTC here). */
const stamp = () => new Date().toISOString().replace('T', ' ').replace('Z', '');

export class TaskError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * DashScope's async text2image (reference §2): submit needs `X-DashScope-Async: enable` and answers
 * a PENDING task; each poll of `GET /api/v1/tasks/{id}` moves it on (RUNNING for `pollsToFinish − 1`
 * polls, then SUCCEEDED with one URL per image). A prompt containing "forbidden" ends FAILED
 * (DataInspectionFailed); one containing "forever" never leaves RUNNING.
 */
export class ImageTasks {
  private readonly tasks = new Map<string, Task>();
  pollsToFinish = 2;

  constructor(private readonly origin: () => string) {}

  submit(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown>): void {
    if (req.headers['x-dashscope-async'] !== 'enable') throw new TaskError(403, 'AccessDenied', 'current user api does not support synchronous calls');
    if (!IMAGE_MODELS.has(String(body.model))) throw new TaskError(400, 'InvalidParameter', 'Model not exist.');
    const input = isRecord(body.input) ? body.input : {};
    if (typeof input.prompt !== 'string' || !input.prompt) throw new TaskError(400, 'InvalidParameter', 'input.prompt is required');
    const p = isRecord(body.parameters) ? body.parameters : {};
    const size = p.size === undefined ? '1024*1024' : String(p.size);
    if (!/^\d+\*\d+$/.test(size)) throw new TaskError(400, 'InvalidParameter', 'size must be like 1024*1024');
    const n = p.n === undefined ? 1 : Number(p.n);
    if (!Number.isInteger(n) || n < 1 || n > 4) throw new TaskError(400, 'InvalidParameter', 'n should be in [1, 4]');
    const task: Task = { id: randomUUID(), n, size, prompt: input.prompt, polls: 0, submitted: stamp(), requestId: randomUUID() };
    this.tasks.set(task.id, task);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ output: { task_status: 'PENDING', task_id: task.id }, request_id: task.requestId }));
  }

  poll(res: ServerResponse, id: string): void {
    const task = this.tasks.get(id);
    if (!task) throw new TaskError(404, 'InvalidParameter', `task ${id} not found`);
    task.polls += 1;
    const base = { task_id: task.id, submit_time: task.submitted, scheduled_time: task.submitted };
    let output: Record<string, unknown>;
    let usage: Record<string, unknown> | undefined;
    if (task.prompt.includes('forever') || task.polls < this.pollsToFinish) {
      output = { ...base, task_status: 'RUNNING', task_metrics: { TOTAL: task.n, SUCCEEDED: 0, FAILED: 0 } };
    } else if (task.prompt.includes('forbidden')) {
      output = { ...base, task_status: 'FAILED', end_time: stamp(), code: 'DataInspectionFailed', message: 'Output data may contain inappropriate content.', task_metrics: { TOTAL: task.n, SUCCEEDED: 0, FAILED: task.n } };
    } else {
      const results = Array.from({ length: task.n }, (_, i) => ({ url: `${this.origin()}/fake-images/${task.id}-${i}.png` }));
      output = { ...base, task_status: 'SUCCEEDED', end_time: stamp(), results, task_metrics: { TOTAL: task.n, SUCCEEDED: task.n, FAILED: 0 } };
      usage = { image_count: task.n };
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ request_id: randomUUID(), output, ...(usage ? { usage } : {}) }));
  }
}
