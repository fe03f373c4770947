import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

/**
 * The answer's sensitive-word screen (CheckSensitiveOnCompletionEnabled, StopOnSensitiveEnabled;
 * docs/relay-billing.md "Sensitive answers"). The fake answers "Hello from the fake OpenAI
 * upstream at …", one word per stream event, so the listed phrase "FAKE openai" is split across
 * two events: the screen must still find it.
 */
describe.each(testDbKinds())('sensitive answers on %s', (kind) => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ kind, fake: { chunkCount: 10 } });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
  });
  afterAll(async () => {
    for (const [key, value] of Object.entries({ SensitiveWords: 'test_sensitive', CheckSensitiveOnCompletionEnabled: 'false', StopOnSensitiveEnabled: 'true' })) await h.server.ctx.options.set(key as 'SensitiveWords', value);
    await h.close();
  });
  beforeEach(async () => {
    await h.server.ctx.options.set('SensitiveWords', 'FAKE openai\nnever said');
  });

  async function screen(check: boolean, stop: boolean) {
    await h.server.ctx.options.set('CheckSensitiveOnCompletionEnabled', String(check));
    await h.server.ctx.options.set('StopOnSensitiveEnabled', String(stop));
  }

  function post(c: TestCaller, stream: boolean) {
    return fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': 'en' },
      body: JSON.stringify({ model: 'gpt-4o-mini', stream, messages: [{ role: 'user', content: 'say hello' }] }),
    });
  }

  /** The text of the content deltas and the error frame, if any, of an SSE reply. */
  async function readStream(res: Response) {
    let text = '';
    let error: { code: string; message: string } | undefined;
    for (const line of (await res.text()).split('\n')) {
      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue;
      const frame = JSON.parse(line.slice(6)) as { choices?: Array<{ delta?: { content?: string } }>; error?: { code: string; message: string } };
      if (frame.error) error = frame.error;
      text += frame.choices?.[0]?.delta?.content ?? '';
    }
    return { text, error };
  }

  /** The one consume log: its charge equals the user's and the token's spend exactly. */
  async function chargedOnce(c: TestCaller) {
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    const log = logs[0]!;
    const charged = Number(log.quota);
    expect(charged).toBeGreaterThan(0);
    expect(await balances(h, c)).toEqual({ quota: 1_000_000 - charged, userUsed: charged, requests: 1, remain: 1_000_000 - charged, tokenUsed: charged });
    return { log, other: JSON.parse(log.other) as { sensitive_words?: string[] } };
  }

  it('stops a stream before the event that completes a word, bills only what was delivered, and logs the word', async () => {
    await screen(true, true);
    const c = await addCaller(h);
    const res = await post(c, true);
    expect(res.status).toBe(200);
    const { text, error } = await readStream(res);
    expect(text).toBe('Hello from the fake');
    expect(error?.code).toBe('sensitive_words_detected');
    expect(error?.message).toContain('The answer contained sensitive words (fake openai) and was stopped');
    const { log, other } = await chargedOnce(c);
    expect(other.sensitive_words).toEqual(['fake openai']);
    // The fake counts one token per word: the four delivered words, not the ten generated.
    expect(Number(log.completion_tokens)).toBeLessThan(10);
  });

  it('withholds a buffered answer with a listed word and charges nothing', async () => {
    await screen(true, true);
    const c = await addCaller(h);
    const res = await post(c, false);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('sensitive_words_detected');
    expect(body.error.message).toContain('The answer contained sensitive words (fake openai) and was stopped');
    expect(await balances(h, c)).toEqual({ quota: 1_000_000, userUsed: 0, requests: 0, remain: 1_000_000, tokenUsed: 0 });
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('without StopOnSensitiveEnabled delivers the whole answer, bills it, and records the word in the log', async () => {
    await screen(true, false);
    for (const stream of [true, false]) {
      const c = await addCaller(h);
      const res = await post(c, stream);
      expect(res.status).toBe(200);
      const text = stream ? (await readStream(res)).text : ((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
      expect(text).toBe('Hello from the fake OpenAI upstream at your service today');
      const { log, other } = await chargedOnce(c);
      expect(other.sensitive_words).toEqual(['fake openai']);
      expect(Number(log.completion_tokens)).toBe(10);
    }
  });

  it('does not screen answers while CheckSensitiveOnCompletionEnabled is off (the default)', async () => {
    await screen(false, true);
    const c = await addCaller(h);
    const { text, error } = await readStream(await post(c, true));
    expect(error).toBeUndefined();
    expect(text).toBe('Hello from the fake OpenAI upstream at your service today');
    const { other } = await chargedOnce(c);
    expect(other.sensitive_words).toBeUndefined();
  });
});
