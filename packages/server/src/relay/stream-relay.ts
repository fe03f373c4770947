import type { ServerResponse } from 'node:http';
import type { Usage } from './adapters/types.js';
import { readUsage } from './billing/pricing.js';

/** What a relayed stream produced, for billing. */
export interface StreamOutcome {
  usage: Usage | undefined;
  /** Text of every content / reasoning / tool-call delta forwarded, for local counting. */
  completionText: string;
  /** Most tool calls seen in one chunk (+7 tokens each when counting locally, reference §3.4). */
  maxToolCalls: number;
  /** Milliseconds from the request start to the first forwarded event, or -1. */
  firstEventMs: number;
  forwarded: number;
  /** Why the stream ended early, if it did ('limit': the next chunk would have overspent). */
  broken?: 'client' | 'upstream' | 'limit';
  /** The id / model / created of the last chunk, for a synthesised usage chunk. */
  meta: { id: string; model: string; created: number };
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};

function writeAsync(res: ServerResponse, data: string): Promise<void> | undefined {
  if (res.write(data)) return undefined;
  // Backpressure: wait for the client instead of buffering the whole stream in memory.
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Relays an OpenAI-style SSE body event by event: each complete event is forwarded as soon as it
 * arrives (no whole-body buffering); `[DONE]` is held back so the pipeline can settle the bill
 * before the last bytes go out. A usage-only chunk the client did not ask for is swallowed.
 */
export async function pumpSse(
  body: AsyncIterable<Buffer>,
  res: ServerResponse,
  opts: {
    startedAt: number;
    clientWantsUsage: boolean;
    writeHead: () => void;
    clientGone: () => boolean;
    /** Spend metering: false when the event's completion text can no longer be paid for. */
    meter?: (text: string) => Promise<boolean>;
  },
): Promise<StreamOutcome> {
  const out: StreamOutcome = { usage: undefined, completionText: '', maxToolCalls: 0, firstEventMs: -1, forwarded: 0, meta: { id: '', model: '', created: 0 } };
  const decoder = new TextDecoder();
  let pending = '';
  const texts: string[] = [];
  const LIMIT = Symbol('limit');

  const handleEvent = async (ev: string): Promise<void> => {
    if (!ev.trim()) return;
    const textsBefore = texts.length;
    let data = '';
    let hasData = false;
    for (const line of ev.split('\n')) {
      if (line.startsWith('data:')) {
        data += (hasData ? '\n' : '') + line.slice(line.charCodeAt(5) === 32 ? 6 : 5);
        hasData = true;
      }
    }
    if (hasData) {
      if (data === '[DONE]') return;
      let obj: Record<string, unknown> | undefined;
      try {
        obj = JSON.parse(data) as Record<string, unknown>;
      } catch {
        obj = undefined;
      }
      if (obj) {
        if (obj.usage) out.usage = readUsage(obj.usage) ?? out.usage;
        if (typeof obj.id === 'string') out.meta.id = obj.id;
        if (typeof obj.model === 'string' && obj.model) out.meta.model = obj.model;
        if (typeof obj.created === 'number') out.meta.created = obj.created;
        const choices = obj.choices;
        if (Array.isArray(choices)) {
          if (choices.length === 0 && obj.usage && !opts.clientWantsUsage) return;
          for (const c of choices as Array<Record<string, unknown>>) {
            if (typeof c.text === 'string') texts.push(c.text);
            const d = c.delta as Record<string, unknown> | undefined;
            if (!d) continue;
            if (typeof d.content === 'string') texts.push(d.content);
            if (typeof d.reasoning_content === 'string') texts.push(d.reasoning_content);
            if (Array.isArray(d.tool_calls)) {
              out.maxToolCalls = Math.max(out.maxToolCalls, d.tool_calls.length);
              for (const tc of d.tool_calls as Array<{ function?: { name?: unknown; arguments?: unknown } }>) {
                if (typeof tc.function?.name === 'string') texts.push(tc.function.name);
                if (typeof tc.function?.arguments === 'string') texts.push(tc.function.arguments);
              }
            }
          }
        }
      }
    }
    if (opts.meter && texts.length > textsBefore && !(await opts.meter(texts.slice(textsBefore).join('')))) {
      texts.length = textsBefore;
      throw LIMIT;
    }
    if (opts.clientGone()) return;
    if (out.forwarded === 0) {
      out.firstEventMs = Date.now() - opts.startedAt;
      opts.writeHead();
    }
    out.forwarded += 1;
    await writeAsync(res, `${ev}\n\n`);
  };

  try {
    for await (const chunk of body) {
      pending += decoder.decode(chunk, { stream: true });
      if (pending.includes('\r')) pending = pending.replace(/\r\n?/g, '\n');
      let cut = pending.indexOf('\n\n');
      while (cut >= 0) {
        const ev = pending.slice(0, cut);
        pending = pending.slice(cut + 2);
        await handleEvent(ev);
        cut = pending.indexOf('\n\n');
      }
    }
    pending += decoder.decode();
    if (pending.trim()) await handleEvent(pending);
  } catch (err) {
    out.broken = err === LIMIT ? 'limit' : opts.clientGone() ? 'client' : 'upstream';
  }
  if (!out.broken && opts.clientGone()) out.broken = 'client';
  out.completionText = texts.join('');
  return out;
}
