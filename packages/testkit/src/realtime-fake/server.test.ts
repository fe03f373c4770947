import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { FAKE_REALTIME_REPLY, REALTIME_AUDIO_BYTES_PER_TOKEN, REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN, REALTIME_AUDIO_TOKENS_PER_WORD, startFakeRealtime, type FakeRealtime } from './index.js';

let fake: FakeRealtime;
beforeAll(async () => {
  fake = await startFakeRealtime({ apiKeys: ['sk-good'] });
});
afterAll(() => fake.close());

type Event = Record<string, unknown> & { type: string };

async function open(url: string, headers: Record<string, string>, protocols?: string[]): Promise<{ ws: WebSocket; events: Event[]; next: (type: string) => Promise<Event> }> {
  const ws = new WebSocket(url, protocols, { headers });
  const events: Event[] = [];
  let read = 0;
  const waiters: Array<() => void> = [];
  ws.on('message', (d) => {
    events.push(JSON.parse(String(d)) as Event);
    for (const w of waiters.splice(0)) w();
  });
  await once(ws, 'open');
  const next = async (type: string): Promise<Event> => {
    for (;;) {
      const i = events.findIndex((e, idx) => idx >= read && e.type === type);
      if (i >= 0) {
        read = i + 1;
        return events[i]!;
      }
      await new Promise<void>((r) => waiters.push(r));
    }
  };
  return { ws, events, next };
}

const openaiUrl = () => `${fake.url.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime-preview`;

describe('realtime fake', () => {
  it('speaks the beta event protocol and reports deterministic usage with cached and audio tokens', async () => {
    const c = await open(openaiUrl(), { authorization: 'Bearer sk-good', 'openai-beta': 'realtime=v1' });
    const created = await c.next('session.created');
    expect((created.session as Record<string, unknown>).model).toBe('gpt-4o-realtime-preview');
    c.ws.send(JSON.stringify({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'one two three' }] } }));
    await c.next('conversation.item.created');
    c.ws.send(JSON.stringify({ type: 'response.create', response: { modalities: ['text'] } }));
    await c.next('response.created');
    let text = '';
    for (let i = 0; i < FAKE_REALTIME_REPLY.split(' ').length; i++) text += (await c.next('response.text.delta')).delta as string;
    expect(text).toBe(FAKE_REALTIME_REPLY);
    const first = (await c.next('response.done')).response as { status: string; usage: Record<string, unknown> };
    expect(first.status).toBe('completed');
    expect(first.usage).toMatchObject({ input_tokens: 3, output_tokens: 6, input_token_details: { cached_tokens: 0 } });
    c.ws.send(JSON.stringify({ type: 'input_audio_buffer.append', audio: Buffer.alloc(REALTIME_AUDIO_BYTES_PER_TOKEN * 3).toString('base64') }));
    c.ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
    await c.next('input_audio_buffer.committed');
    c.ws.send(JSON.stringify({ type: 'response.create' }));
    expect((await c.next('response.audio_transcript.delta')).delta).toBe('Hello');
    const second = (await c.next('response.done')).response as { usage: Record<string, unknown> };
    // Context: 3 words + the 6-word reply + 3 audio tokens; the first 3 words were read before.
    expect(second.usage).toMatchObject({
      input_tokens: 12,
      output_tokens: 36,
      input_token_details: { cached_tokens: 3, text_tokens: 9, audio_tokens: 3 },
      output_token_details: { text_tokens: 6, audio_tokens: 30 },
    });
    c.ws.send(JSON.stringify({ type: 'no.such.event' }));
    expect(((await c.next('error')).error as Record<string, unknown>).code).toBe('invalid_value');
    c.ws.close();
    await once(c.ws, 'close');
    expect(fake.connections.at(-1)!.received).toEqual(['conversation.item.create', 'response.create', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'response.create', 'no.such.event']);
  });

  it('sends each reply word as 50 ms of pcm16 per audio token it bills (OpenAI: 1 token per 50 ms of assistant audio)', async () => {
    const c = await open(openaiUrl(), { authorization: 'Bearer sk-good' });
    c.ws.send(JSON.stringify({ type: 'response.create', response: { modalities: ['audio', 'text'] } }));
    const done = (await c.next('response.done')).response as { usage: { output_token_details: { audio_tokens: number } } };
    const bytes = c.events.filter((e) => e.type === 'response.audio.delta').reduce((n, e) => n + Buffer.from(e.delta as string, 'base64').length, 0);
    expect(REALTIME_AUDIO_TOKENS_PER_WORD * REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN).toBe(12_000);
    expect(bytes / REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN).toBe(done.usage.output_token_details.audio_tokens);
    c.ws.close();
  });

  it('a paused response stays in progress: a second response.create is refused, resume or response.cancel ends it', async () => {
    fake.setPauseMidResponse(1, 2);
    const c = await open(openaiUrl(), { authorization: 'Bearer sk-good' });
    fake.setPauseMidResponse(null);
    c.ws.send(JSON.stringify({ type: 'response.create', response: { modalities: ['text'] } }));
    expect((await c.next('response.text.delta')).delta).toBe('Hello');
    expect((await c.next('response.text.delta')).delta).toBe(' from');
    c.ws.send(JSON.stringify({ type: 'response.create', event_id: 'evt_2' }));
    expect((await c.next('error')).error).toMatchObject({ code: 'conversation_already_has_active_response', event_id: 'evt_2' });
    expect(c.events.some((e) => e.type === 'response.done')).toBe(false);
    // Cancelled after two words: those are what it reports (and what joins the conversation).
    c.ws.send(JSON.stringify({ type: 'response.cancel' }));
    const cancelled = (await c.next('response.done')).response as Record<string, unknown>;
    expect(cancelled).toMatchObject({ status: 'cancelled', status_details: { type: 'cancelled', reason: 'client_cancelled' } });
    expect(cancelled.usage).toMatchObject({ input_tokens: 0, output_tokens: 2 });
    c.ws.send(JSON.stringify({ type: 'response.cancel' }));
    expect(((await c.next('error')).error as Record<string, unknown>).code).toBe('response_cancel_not_active');
    c.ws.close();

    fake.setPauseMidResponse(1, 1);
    const d = await open(openaiUrl(), { authorization: 'Bearer sk-good' });
    fake.setPauseMidResponse(null);
    d.ws.send(JSON.stringify({ type: 'response.create', response: { modalities: ['text'] } }));
    await d.next('response.text.delta');
    fake.resumeAll();
    const done = (await d.next('response.done')).response as Record<string, unknown>;
    expect(done).toMatchObject({ status: 'completed', usage: { output_tokens: 6 } });
    expect(d.events.filter((e) => e.type === 'response.text.delta').map((e) => e.delta).join('')).toBe(FAKE_REALTIME_REPLY);
    d.ws.close();
  });

  it('refuses a wrong key in-band as OpenAI does: an invalid_api_key error event, then close 3000', async () => {
    const c = await open(openaiUrl(), { authorization: 'Bearer sk-wrong-key-123' });
    const err = (await c.next('error')).error as Record<string, unknown>;
    expect(err).toMatchObject({ type: 'invalid_request_error', code: 'invalid_api_key' });
    expect(String(err.message)).toMatch(/^Incorrect API key provided: sk-/);
    const [code, reason] = (await once(c.ws, 'close')) as [number, Buffer];
    expect([code, String(reason)]).toEqual([3000, 'invalid_request_error.invalid_api_key']);
  });

  it('takes the key from the browser subprotocol and selects `realtime`', async () => {
    const c = await open(openaiUrl(), {}, ['realtime', 'openai-insecure-api-key.sk-good', 'openai-beta.realtime-v1']);
    expect(c.ws.protocol).toBe('realtime');
    await c.next('session.created');
    c.ws.close();
  });

  it('Azure: /openai/realtime needs api-version, deployment and the api-key header (401 on the handshake)', async () => {
    const base = `${fake.url.replace('http', 'ws')}/openai/realtime?api-version=2024-10-01-preview&deployment=gpt-4o-realtime-preview`;
    const ws = new WebSocket(base, { headers: { 'api-key': 'bad' } });
    ws.on('error', () => undefined);
    const [, res] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(res.statusCode).toBe(401);
    ws.terminate();
    const ok = await open(base, { 'api-key': 'sk-good' });
    expect(((await ok.next('session.created')).session as Record<string, unknown>).model).toBe('gpt-4o-realtime-preview');
    ok.ws.close();
  });
});
