import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_PNG, IMAGE_TOKENS, startFakeGemini, type FakeGemini } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../../../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../../../test-support/relay-fixtures.js';

/**
 * http(s) image URLs for a Gemini upstream, which reads images inline only: ModelGate fetches the
 * URL through its SSRF-guarded client (a private address only when OutboundAllowedRanges allows
 * it), takes the mime type from an `image/*` Content-Type and sends the bytes inline; a refused or
 * failed fetch is the caller's 400 naming the field and the reason, and nothing is charged.
 */
let h: RelayHarness;
let gemini: FakeGemini;
let images: Server;
let origin: string;
const GEMINI = 'gemini-2.0-flash';

beforeAll(async () => {
  h = await startRelayHarness();
  gemini = await startFakeGemini({ apiKeys: ['AIza-upstream'] });
  await h.server.ctx.options.set('ModelRatio', JSON.stringify({ [GEMINI]: 2 }));
  await addChannel(h.root, { type: 24, name: 'gemini', key: 'AIza-upstream', base_url: gemini.url, models: GEMINI });
  images = createServer((req, res) => {
    if (req.url === '/cat.png') res.writeHead(200, { 'content-type': 'image/png' }).end(FAKE_PNG);
    else if (req.url === '/page.html') res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html></html>');
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await new Promise((resolve) => images.close(resolve));
  await gemini.close();
  await h.close();
});

const ask = (url: string) => [{ role: 'user' as const, content: [{ type: 'text' as const, text: 'what is this?' }, { type: 'image_url' as const, image_url: { url } }] }];
const allow = (ranges: string) => h.server.ctx.options.set('OutboundAllowedRanges', ranges);

describe('http(s) image URLs → Gemini channel', () => {
  it('refuses a private address the operator did not allow: a 400 naming the field and the reason, nothing sent or charged', async () => {
    await allow('');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const sent = gemini.requests.length;
    const err = await c.client.chat.completions.create({ model: GEMINI, messages: ask(`${origin}/cat.png`) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'messages.0.content.1', code: 'invalid_image_url' });
    expect((err as Error).message).toContain('127.0.0.1');
    expect((err as Error).message).toContain('an address outbound requests may not reach');
    expect(gemini.requests).toHaveLength(sent);
    expect(await balances(h, c)).toEqual(before);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });

  it('inlines an allowed image with its Content-Type and charges the image tokens Gemini reports', async () => {
    await allow('127.0.0.1/32');
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.chat.completions.create({ model: GEMINI, messages: ask(`${origin}/cat.png`) });
    expect(res.choices[0]!.message.content).toBe('Hello from the fake Gemini');
    expect((gemini.requests.at(-1)!.body as { contents: unknown[] }).contents).toEqual([
      { role: 'user', parts: [{ text: 'what is this?' }, { inlineData: { mimeType: 'image/png', data: FAKE_PNG.toString('base64') } }] },
    ]);
    // 3 words + one inline image; gemini-2.0-flash: ratio 2, completion ratio 4.
    expect(res.usage).toMatchObject({ prompt_tokens: 3 + IMAGE_TOKENS, completion_tokens: 5 });
    const expected = expectedCharge({ modelRatio: 2, completionRatio: 4 }, { prompt: 3 + IMAGE_TOKENS, completion: 5 });
    expect(before.quota - (await balances(h, c)).quota).toBe(expected);
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ prompt_tokens: 3 + IMAGE_TOKENS, quota: expected });

    // An Anthropic caller's `url` image source, converted through chat, is inlined the same way (streamed here).
    const msg = await anthropicClient(h, c)
      .messages.stream({ model: GEMINI, max_tokens: 64, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'url', url: `${origin}/cat.png` } }, { type: 'text', text: 'what is this?' }] }] })
      .finalMessage();
    expect(msg.content).toMatchObject([{ type: 'text', text: 'Hello from the fake Gemini' }]);
    expect((gemini.requests.at(-1)!.body as { contents: Array<{ parts: unknown[] }> }).contents[0]!.parts[0]).toEqual({ inlineData: { mimeType: 'image/png', data: FAKE_PNG.toString('base64') } });
  });

  it.each([
    ['a non-image content type', '/page.html', 'the content type is text/html, not an image'],
    ['an HTTP error', '/missing.png', 'the server answered HTTP 404'],
  ])('refuses %s with a 400 naming the reason', async (_n, path, reason) => {
    await allow('127.0.0.1/32');
    const c = await addCaller(h);
    const err = await c.client.chat.completions.create({ model: GEMINI, messages: ask(`${origin}${path}`) }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 400, param: 'messages.0.content.1' });
    expect((err as Error).message).toContain(reason);
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
  });
});
