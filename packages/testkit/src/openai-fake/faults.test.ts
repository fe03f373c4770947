import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { FAULT_HEADER } from './faults.js';
import { MALFORMED_SSE_PAYLOAD } from './respond.js';
import { startFakeOpenAI } from './server.js';
import { parseSseData } from './sse-client.js';
import type { FakeFault, FakeOpenAI } from './types.js';
import { expectedChatUsage, fakeReplyText } from './usage.js';

let fake: FakeOpenAI;
let client: OpenAI;

const CHAT = { model: 'gpt-4o', messages: [{ role: 'user' as const, content: 'hello there' }] };
const STREAM_CHAT = { ...CHAT, stream: true as const, stream_options: { include_usage: true } };

beforeAll(async () => {
  fake = await startFakeOpenAI();
  client = new OpenAI({ apiKey: 'sk-any', baseURL: fake.baseURL, maxRetries: 0, timeout: 10_000 });
});

afterAll(async () => {
  await fake.close();
});

beforeEach(() => fake.reset());

function chat(body: unknown, fault?: FakeFault, timeoutMs = 10_000): Promise<Response> {
  return fetch(`${fake.baseURL}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(fault ? { [FAULT_HEADER]: JSON.stringify(fault) } : {}) },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
}

interface FrameRead {
  frames: string[];
  /** done: the server ended the body; idle: nothing arrived for idleMs; error: the connection broke. */
  end: 'done' | 'idle' | 'error';
}

/** Reads SSE frames until the body ends, breaks, or stays silent for `idleMs`. */
async function readFrames(res: Response, idleMs = 600): Promise<FrameRead> {
  if (!res.body) throw new Error('no body');
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let end: FrameRead['end'];
  for (;;) {
    let timer: NodeJS.Timeout | undefined;
    const idle = new Promise<'idle'>((resolve) => {
      timer = setTimeout(() => resolve('idle'), idleMs);
    });
    try {
      const result = await Promise.race([reader.read(), idle]);
      if (result === 'idle') {
        end = 'idle';
        break;
      }
      if (result.done) {
        end = 'done';
        break;
      }
      text += decoder.decode(result.value, { stream: true });
    } catch {
      end = 'error';
      break;
    } finally {
      clearTimeout(timer);
    }
  }
  if (end === 'idle') await reader.cancel().catch(() => undefined);
  // Only complete events (terminated by a blank line) count as received frames.
  const complete = text.slice(0, text.lastIndexOf('\n\n') + 2);
  return { frames: parseSseData(complete), end };
}

describe('status faults', () => {
  it('returns 429 with Retry-After and the given error fields to the SDK', async () => {
    const fault = { status: 429, retryAfter: 2, message: 'Slow down', type: 'requests', code: 'rate_limit_exceeded' };
    const err: unknown = await client.chat.completions.create(CHAT, { headers: { [FAULT_HEADER]: JSON.stringify(fault) } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    const apiError = err as InstanceType<typeof OpenAI.RateLimitError>;
    expect(apiError.status).toBe(429);
    expect(apiError.headers.get('retry-after')).toBe('2');
    expect(apiError.error).toEqual({ message: 'Slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' });
    expect(fake.requests[0].fault).toEqual(fault);
  });

  it('uses realistic defaults per status and sends no Retry-After unless asked', async () => {
    const res = await chat(CHAT, { status: 500 });
    expect(res.status).toBe(500);
    expect(res.headers.get('retry-after')).toBeNull();
    expect(await res.json()).toEqual({
      error: { message: 'The server had an error while processing your request. Sorry about that!', type: 'server_error', param: null, code: null },
    });
    const dated = await chat(CHAT, { status: 503, retryAfter: 'Wed, 21 Oct 2015 07:28:00 GMT' });
    expect(dated.headers.get('retry-after')).toBe('Wed, 21 Oct 2015 07:28:00 GMT');
    expect(((await dated.json()) as { error: { message: string } }).error.message).toMatch(/overloaded/u);
  });

  it('can send a raw non-OpenAI body, like a proxy HTML page', async () => {
    const res = await chat(CHAT, { status: 502, body: '<html>Bad Gateway</html>', contentType: 'text/html' });
    expect(res.status).toBe(502);
    expect(res.headers.get('content-type')).toBe('text/html');
    expect(await res.text()).toBe('<html>Bad Gateway</html>');
  });

  it('rejects an unparsable fault header with 400', async () => {
    const res = await fetch(`${fake.baseURL}/models`, { headers: { [FAULT_HEADER]: '{"status":"soon"}' }, signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/status must be a number/u);
  });
});

describe('timing faults', () => {
  it('delays the first byte by delayMs', async () => {
    const started = Date.now();
    const res = await chat(CHAT, { delayMs: 250 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(240);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: { message: { content: string } }[] }).choices[0].message.content).toBe(fakeReplyText(5));
  });

  it('slows the stream with chunkDelayMs but still delivers every frame', async () => {
    const started = Date.now();
    const { frames, end } = await readFrames(await chat(STREAM_CHAT, { chunkDelayMs: 30 }), 2000);
    expect(end).toBe('done');
    expect(frames).toHaveLength(9);
    // 8 gaps between 9 frames.
    expect(Date.now() - started).toBeGreaterThanOrEqual(8 * 30 - 10);
  });
});

describe('silence faults', () => {
  it('stalls a stream after N frames', async () => {
    const { frames, end } = await readFrames(await chat(STREAM_CHAT, { silenceAfterChunks: 3 }));
    expect(end).toBe('idle');
    expect(frames).toHaveLength(3);
    expect((JSON.parse(frames[0]) as { choices: { delta: { role: string } }[] }).choices[0].delta.role).toBe('assistant');
  });

  it('never answers a non-stream request with silenceAfterChunks 0', async () => {
    await expect(chat(CHAT, { silenceAfterChunks: 0 }, 400)).rejects.toMatchObject({ name: 'TimeoutError' });
  });

  it('sends status and half a body, then stalls, for a non-stream request with N > 0', async () => {
    const res = await chat(CHAT, { silenceAfterChunks: 1 });
    expect(res.status).toBe(200);
    const { end } = await readFrames(res);
    expect(end).toBe('idle');
  });

  it('ends stalled streams when the fake is closed', async () => {
    const own = await startFakeOpenAI();
    const res = await fetch(`${own.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { [FAULT_HEADER]: JSON.stringify({ silenceAfterChunks: 2 }) },
      body: JSON.stringify(STREAM_CHAT),
      signal: AbortSignal.timeout(10_000),
    });
    const reading = readFrames(res, 5000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closed = await Promise.race([own.close().then(() => 'closed'), new Promise((resolve) => setTimeout(() => resolve('stuck'), 3000))]);
    expect(closed).toBe('closed');
    const { frames, end } = await reading;
    expect(frames).toHaveLength(2);
    expect(end).not.toBe('idle');
  });
});

describe('disconnect faults', () => {
  it('resets the connection mid-stream after N frames', async () => {
    const { frames, end } = await readFrames(await chat(STREAM_CHAT, { disconnectAfterChunks: 4 }), 3000);
    expect(end).toBe('error');
    expect(frames).toHaveLength(4);
  });

  it('makes the SDK stream fail mid-way', async () => {
    const stream = await client.chat.completions.create(STREAM_CHAT, { headers: { [FAULT_HEADER]: JSON.stringify({ disconnectAfterChunks: 2 }) } });
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of stream) seen.push(chunk.id);
      })(),
    ).rejects.toThrow();
    expect(seen).toHaveLength(2);
  });

  it('drops the connection before any byte with disconnectAfterChunks 0', async () => {
    await expect(chat(CHAT, { disconnectAfterChunks: 0 })).rejects.toThrow(/fetch failed/u);
    await expect(client.chat.completions.create(CHAT, { headers: { [FAULT_HEADER]: '{"disconnectAfterChunks":0}' } })).rejects.toBeInstanceOf(
      OpenAI.APIConnectionError,
    );
  });

  it('cuts a non-stream body after the status line with N > 0', async () => {
    const res = await chat(CHAT, { disconnectAfterChunks: 1 });
    expect(res.status).toBe(200);
    await expect(res.text()).rejects.toThrow();
  });
});

describe('content faults', () => {
  it('sends 200 with unparsable JSON', async () => {
    const res = await chat(CHAT, { malformedJson: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text.startsWith('{"id":"chatcmpl-')).toBe(true);
    expect(() => JSON.parse(text) as unknown).toThrow(SyntaxError);
  });

  it('inserts one broken SSE frame after the role frame', async () => {
    const { frames, end } = await readFrames(await chat(STREAM_CHAT, { malformedJson: true }), 2000);
    expect(end).toBe('done');
    expect(frames).toHaveLength(10);
    expect(frames[1]).toBe(MALFORMED_SSE_PAYLOAD);
    expect(() => JSON.parse(frames[1]) as unknown).toThrow(SyntaxError);
    const valid = frames.filter((_, i) => i !== 1 && i !== frames.length - 1).map((f) => JSON.parse(f) as { choices: { delta?: { content?: string } }[] });
    expect(valid.map((c) => c.choices[0]?.delta?.content ?? '').join('')).toBe(fakeReplyText(5));
  });

  it('omits usage from JSON, stream and embedding replies', async () => {
    const json = (await (await chat(CHAT, { omitUsage: true })).json()) as Record<string, unknown>;
    expect(json.object).toBe('chat.completion');
    expect('usage' in json).toBe(false);

    const { frames } = await readFrames(await chat(STREAM_CHAT, { omitUsage: true }), 2000);
    expect(frames).toHaveLength(8); // role + 5 + finish + [DONE], no usage frame
    expect(frames.slice(0, -1).some((f) => (JSON.parse(f) as { usage?: unknown }).usage)).toBe(false);

    const emb = await client.embeddings.create(
      { model: 'text-embedding-3-small', input: 'x', encoding_format: 'float' },
      { headers: { [FAULT_HEADER]: '{"omitUsage":true}' } },
    );
    expect(emb.usage).toBeUndefined();
  });
});

describe('fault scope', () => {
  it('heals an instance fault after `times` requests, so an SDK retry succeeds', async () => {
    fake.setFault({ status: 500, times: 2 });
    const retrying = new OpenAI({ apiKey: 'sk-any', baseURL: fake.baseURL, maxRetries: 2, timeout: 10_000 });
    const completion = await retrying.chat.completions.create(CHAT);
    expect(completion.usage).toEqual(expectedChatUsage(CHAT));
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests.map((r) => r.fault?.status)).toEqual([500, 500, undefined]);
    expect((await chat(CHAT)).status).toBe(200);
  });

  it('counts header faults per header value until reset()', async () => {
    const fault = { status: 429, times: 1 };
    expect((await chat(CHAT, fault)).status).toBe(429);
    expect((await chat(CHAT, fault)).status).toBe(200);
    expect((await chat(CHAT, { ...fault, message: 'other' })).status).toBe(429);
    fake.reset();
    expect((await chat(CHAT, fault)).status).toBe(429);
  });

  it('fails only the listed models, including multipart uploads', async () => {
    fake.setFault({ status: 500, models: ['gpt-broken', 'whisper-broken'] });
    expect((await chat({ ...CHAT, model: 'gpt-broken' })).status).toBe(500);
    expect((await chat(CHAT)).status).toBe(200);
    const file = await toFile(Buffer.alloc(10), 'a.mp3');
    await expect(client.audio.transcriptions.create({ file, model: 'whisper-broken' })).rejects.toMatchObject({ status: 500 });
    const ok = await client.audio.transcriptions.create({ file: await toFile(Buffer.alloc(10), 'a.mp3'), model: 'whisper-1' });
    expect(ok.text).toContain('10 bytes');
  });

  it('fails only the listed paths, and the header fault wins over the instance fault', async () => {
    fake.setFault({ status: 503, paths: ['/v1/embeddings'] });
    expect((await chat(CHAT)).status).toBe(200);
    await expect(client.embeddings.create({ model: 'text-embedding-3-small', input: 'x' })).rejects.toMatchObject({ status: 503 });
    fake.setFault({ status: 503 });
    expect((await chat(CHAT, { status: 418 })).status).toBe(418);
    fake.setFault(null);
    expect((await chat(CHAT)).status).toBe(200);
  });

  it('applies a fault given at start', async () => {
    const own = await startFakeOpenAI({ fault: { status: 401, code: 'invalid_api_key', times: 1 } });
    try {
      const first = await fetch(`${own.baseURL}/models`, { signal: AbortSignal.timeout(10_000) });
      expect(first.status).toBe(401);
      expect(await first.json()).toMatchObject({ error: { code: 'invalid_api_key' } });
      expect((await fetch(`${own.baseURL}/models`, { signal: AbortSignal.timeout(10_000) })).status).toBe(200);
    } finally {
      await own.close();
    }
  });
});
