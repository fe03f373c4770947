import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_PNG, startFakeGemini, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * WorkerUrl / WorkerValidKey (reference §8.2, "download proxy for media URLs"): with a worker set,
 * an image URL a caller sends is not fetched from this server but POSTed to the worker as
 * `{url, key, method, headers}`, and the worker's answer is what goes upstream.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let worker: Server;
let workerUrl: string;
const seen: Array<{ path: string; body: Record<string, unknown> }> = [];
const GEMINI = 'gemini-2.0-flash';

const readBody = async (req: IncomingMessage) => {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return JSON.parse(text) as Record<string, unknown>;
};

beforeAll(async () => {
  h = await startRelayHarness();
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2 }));
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  worker = createServer((req, res) => {
    void readBody(req).then((body) => {
      seen.push({ path: req.url ?? '', body });
      if (req.method !== 'POST' || body.key !== 'worker-secret') res.writeHead(403).end('bad key');
      else res.writeHead(200, { 'content-type': 'image/png' }).end(FAKE_PNG);
    });
  });
  await new Promise<void>((resolve) => worker.listen(0, '127.0.0.1', resolve));
  workerUrl = `http://127.0.0.1:${(worker.address() as AddressInfo).port}`;
  // The worker is on loopback here, so the operator allows it; the image host is never contacted.
  await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
});
afterAll(async () => {
  await new Promise((resolve) => worker.close(resolve));
  await gemini.close();
  await h.close();
});

const ask = (url: string) => [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'what is this?' }, { type: 'image_url' as const, image_url: { url } }] }];

describe('WorkerUrl: image downloads through the worker', () => {
  it('posts {url, key, method, headers} to the worker and sends its answer upstream', async () => {
    await h.server.ctx.options.set('WorkerUrl', `${workerUrl}/`);
    await h.server.ctx.options.set('WorkerValidKey', 'worker-secret');
    const c = await addCaller(h);
    // An address nothing listens on: only the worker could have produced the image.
    const res = await c.client.chat.completions.create({ model: GEMINI, messages: ask('https://images.invalid/cat.png') });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake Gemini');
    expect(seen.at(-1)).toEqual({ path: '/', body: { url: 'https://images.invalid/cat.png', key: 'worker-secret', method: 'GET', headers: { accept: 'image/*' } } });
    expect((gemini.requests.at(-1)!.body as { contents: Array<{ parts: unknown[] }> }).contents[0]!.parts[1]).toEqual({
      inlineData: { mimeType: 'image/png', data: FAKE_PNG.toString('base64') },
    });
  });

  it("refuses the request (400, nothing sent upstream) when the worker refuses, naming the worker's status", async () => {
    await h.server.ctx.options.set('WorkerUrl', workerUrl);
    await h.server.ctx.options.set('WorkerValidKey', 'wrong');
    const c = await addCaller(h);
    const sent = gemini.requests.length;
    const err = await c.client.chat.completions.create({ model: GEMINI, messages: ask('https://images.invalid/cat.png') }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, code: 'invalid_image_url' });
    expect((err as Error).message).toContain('HTTP 403');
    expect(gemini.requests).toHaveLength(sent);
  });

  it('fetches directly again once the worker is cleared', async () => {
    await h.server.ctx.options.set('WorkerUrl', '');
    const c = await addCaller(h);
    const calls = seen.length;
    const err = await c.client.chat.completions.create({ model: GEMINI, messages: ask('https://images.invalid/cat.png') }).catch((e: unknown) => e);
    // images.invalid does not resolve: the direct fetch was tried, the worker was not.
    expect(err).toMatchObject({ status: 400, code: 'invalid_image_url' });
    expect(seen).toHaveLength(calls);
  });
});
