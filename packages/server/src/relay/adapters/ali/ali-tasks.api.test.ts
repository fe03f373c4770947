import { FAKE_DASHSCOPE_KEY, FAKE_QWEN_WORDS, startFakeDashScope, type FakeDashScope } from '@modelgate/testkit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { aliTaskPolling } from './adapter.js';
import { DEFAULT_TASK_POLLING } from './image-task.js';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, spentBy, startRelayHarness, type RelayHarness, type TestCaller } from '../../../test-support/relay-fixtures.js';

/**
 * Alibaba DashScope (17): the async text2image task behind `/v1/images/generations` (submit with
 * `X-DashScope-Async`, poll `/api/v1/tasks/{id}` within a bounded wait, charged only on success)
 * and the OpenAI-compatible mode of a channel whose base URL ends `/compatible-mode`; the official
 * SDK as caller, the DashScope fake, exact charges.
 */
let h: RelayHarness;
let ds: FakeDashScope;
const WANX = 'wanx-v1';
const QWEN = 'qwen-turbo';
const CQWEN = 'qwen-compat';
const CEMBED = 'text-embedding-compat';
const messages = [{ role: 'user' as const, content: 'Hello there friend' }];

beforeAll(async () => {
  h = await startRelayHarness();
  ds = await startFakeDashScope();
  const o = h.server.ctx.options;
  await o.set('ModelPrice', JSON.stringify({ [WANX]: 0.02 }));
  await o.set('ModelRatio', JSON.stringify({ [CQWEN]: 2, [CEMBED]: 0.5 }));
  await o.set('CompletionRatio', JSON.stringify({ [CQWEN]: 3 }));
  await addChannel(h.root, { type: 17, key: FAKE_DASHSCOPE_KEY, base_url: ds.url, models: WANX });
  await addChannel(h.root, {
    type: 17,
    key: FAKE_DASHSCOPE_KEY,
    base_url: `${ds.url}/compatible-mode`,
    models: `${CQWEN},${CEMBED}`,
    model_mapping: JSON.stringify({ [CQWEN]: QWEN, [CEMBED]: 'text-embedding-v3' }),
  });
  // Polling at test speed; the default schedule is checked below.
  Object.assign(aliTaskPolling, { delaysMs: [20, 40], maxWaitMs: 2000 });
});
afterEach(() => {
  ds.setTaskPolls(2);
  Object.assign(aliTaskPolling, { delaysMs: [20, 40], maxWaitMs: 2000 });
});
afterAll(async () => {
  Object.assign(aliTaskPolling, DEFAULT_TASK_POLLING);
  await ds.close();
  await h.close();
});

const SUBMIT = '/api/v1/services/aigc/text2image/image-synthesis';
const submits = () => ds.requests.filter((r) => r.path === SUBMIT);
const polls = () => ds.requests.filter((r) => r.path.startsWith('/api/v1/tasks/'));

const spent = (c: TestCaller, fn: () => Promise<unknown>) => spentBy(h, c, fn);

describe('DashScope image synthesis (async task)', () => {
  it('submits with X-DashScope-Async, polls until SUCCEEDED, answers OpenAI`s images shape; charged per image', async () => {
    const c = await addCaller(h);
    ds.setTaskPolls(3);
    const pollsBefore = polls().length;
    let urls: string[] = [];
    const cost = await spent(c, async () => {
      const r = await c.client.images.generate({ model: WANX, prompt: 'a cat on a mat', n: 2, size: '1024x1024' });
      urls = (r.data ?? []).map((d) => d.url ?? '');
      expect(r.created).toBeGreaterThan(0);
    });
    const submit = submits().at(-1)!;
    expect(submit.headers['x-dashscope-async']).toBe('enable');
    expect(submit.headers.authorization).toBe(`Bearer ${FAKE_DASHSCOPE_KEY}`);
    expect(submit.body).toEqual({ model: WANX, input: { prompt: 'a cat on a mat' }, parameters: { n: 2, size: '1024*1024' } });
    expect(polls().length - pollsBefore).toBe(3);
    expect(polls().at(-1)!.headers.authorization).toBe(`Bearer ${FAKE_DASHSCOPE_KEY}`);
    expect(urls).toHaveLength(2);
    expect(urls[0]).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/fake-images\/.+-0\.png$/);
    // 0.02 $ per image × 2 images × 500 000 quota per $.
    expect(cost).toBe(20_000);
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: WANX, quota: 20_000 });
  });

  it('a FAILED task is DashScope`s error with its code; nothing is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const err = (await c.client.images.generate({ model: WANX, prompt: 'something forbidden' }).catch((e: unknown) => e)) as { status: number; code: string; message: string };
    expect(err.code).toBe('DataInspectionFailed');
    expect(err.message).toContain('inappropriate content');
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('a task that never ends is given up after the bounded wait: 504, not retried, nothing charged', async () => {
    Object.assign(aliTaskPolling, { delaysMs: [30], maxWaitMs: 200 });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const submitted = submits().length;
    const err = (await c.client.images.generate({ model: WANX, prompt: 'render forever' }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(504);
    expect(err.message).toContain('did not finish');
    expect(submits().length - submitted).toBe(1);
    expect(await balances(h, c)).toEqual(before);
  });

  it('b64_json is refused before DashScope is called (it answers URLs only)', async () => {
    const c = await addCaller(h);
    const submitted = submits().length;
    const err = (await c.client.images.generate({ model: WANX, prompt: 'a cat', response_format: 'b64_json' }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(400);
    expect(err.message).toContain('response_format');
    expect(submits()).toHaveLength(submitted);
  });

  it('the default schedule stays within the reference`s one-minute bound', () => {
    expect(DEFAULT_TASK_POLLING.maxWaitMs).toBe(60_000);
    expect(Math.max(...DEFAULT_TASK_POLLING.delaysMs)).toBe(3000);
  });
});

describe('DashScope compatible mode (base URL ending /compatible-mode)', () => {
  const charge = (prompt: number, completion: number) => expectedCharge({ modelRatio: 2, completionRatio: 3 }, { prompt, completion });

  it('chat goes to /compatible-mode/v1/chat/completions in OpenAI`s shape, top_p clamped; exact charge', async () => {
    const c = await addCaller(h);
    let text = '';
    const cost = await spent(c, async () => {
      text = (await c.client.chat.completions.create({ model: CQWEN, messages, top_p: 1 })).choices[0]!.message.content ?? '';
    });
    const last = ds.requests.at(-1)!;
    expect(last.path).toBe('/compatible-mode/v1/chat/completions');
    expect(last.body).toEqual({ model: QWEN, messages, top_p: 0.999 });
    expect(text).toBe(FAKE_QWEN_WORDS.slice(0, 5).join(' '));
    expect(cost).toBe(charge(3, 5));
  });

  it('stream: the usage chunk is asked for and billed exactly', async () => {
    const c = await addCaller(h);
    let text = '';
    let usage: { prompt_tokens: number; completion_tokens: number } | undefined | null;
    const cost = await spent(c, async () => {
      for await (const chunk of await c.client.chat.completions.create({ model: CQWEN, messages, stream: true, stream_options: { include_usage: true } })) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
    });
    expect((ds.requests.at(-1)!.body as Record<string, unknown>).stream_options).toEqual({ include_usage: true });
    expect(ds.requests.at(-1)!.headers['x-dashscope-sse']).toBeUndefined();
    expect(text).toBe(FAKE_QWEN_WORDS.slice(0, 5).join(' '));
    expect(usage).toMatchObject({ prompt_tokens: 3, completion_tokens: 5 });
    expect(cost).toBe(charge(3, 5));
  });

  it('embeddings go to /compatible-mode/v1/embeddings', async () => {
    const c = await addCaller(h);
    const cost = await spent(c, async () => {
      const r = await c.client.embeddings.create({ model: CEMBED, input: ['one two three four'] });
      expect(r.data).toHaveLength(1);
    });
    expect(ds.requests.at(-1)!.path).toBe('/compatible-mode/v1/embeddings');
    expect(cost).toBe(2);
  });
});
