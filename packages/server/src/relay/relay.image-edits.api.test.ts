import { createHash } from 'node:crypto';
import { FAKE_PNG } from '@modelgate/testkit';
import { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedImageCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness, type TestCaller } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

let h: RelayHarness;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
/** A distinct (still valid) PNG for the mask: the PNG signature followed by other bytes. */
const MASK = Buffer.concat([FAKE_PNG.subarray(0, 8), Buffer.alloc(300, 7)]);


/** dall-e-2: ModelRatio 8 → $0.02 per 1024² image (reference §5.3); × size factor × n × 500 000. */
const dalle2 = (size: string, n: number) => expectedImageCharge({ model: 'dall-e-2' }, { size, n });

/** The SDK's error of a call that must fail (status and OpenAI error object). */
function failed(p: Promise<unknown>): Promise<{ status: number; error: Record<string, unknown> }> {
  return p.then(
    () => {
      throw new Error('the call succeeded');
    },
    (e: unknown) => e as { status: number; error: Record<string, unknown> },
  );
}

async function expectCharged(c: TestCaller, before: Awaited<ReturnType<typeof balances>>, amount: number, model: string, n: number) {
  const after = await balances(h, c);
  expect(before.quota - after.quota).toBe(amount);
  expect(before.remain - after.remain).toBe(amount);
  expect(after.userUsed).toBe(amount);
  expect(after.tokenUsed).toBe(amount);
  const logs = await consumeLogs(h, c.userId);
  expect(logs).toHaveLength(1);
  expect(Number(logs[0]!.quota)).toBe(amount);
  expect(logs[0]!.model_name).toBe(model);
  expect(Number(logs[0]!.prompt_tokens)).toBe(n);
}

async function expectNothingCharged(c: TestCaller, before: Awaited<ReturnType<typeof balances>>) {
  const after = await balances(h, c);
  expect(after).toEqual(before);
  expect(await consumeLogs(h, c.userId)).toHaveLength(0);
}

describe.each(testDbKinds())('POST /v1/images/edits and /v1/images/variations on %s', (kind) => {
  beforeAll(async () => {
    h = await startRelayHarness({ kind, fake: { apiKeys: ['sk-upstream', 'azure-key'] } });
    const o = h.server.ctx.options;
    await o.set('ModelPrice', JSON.stringify({ ...o.json<Record<string, number>>('ModelPrice', {}), 'gpt-image-1': 0.04 }));
    await addChannel(h.root, { name: 'openai', base_url: h.fake.url, models: 'dall-e-2,gpt-image-1' });
    // Azure channels only serve the `vip` group here, so each test knows which channel answers.
    await addChannel(h.root, { name: 'azure', type: 3, key: 'azure-key', base_url: h.fake.url, other: '2025-04-01-preview', models: 'gpt-image-1,dall-e-2', group: 'vip' });
  });
  afterAll(() => h.close());

  it('relays an edit (image + mask) from the openai SDK intact and charges per image × size × n', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.images.edit({
      image: await toFile(FAKE_PNG, 'cat.png', { type: 'image/png' }),
      mask: await toFile(MASK, 'mask.png', { type: 'image/png' }),
      prompt: 'a cat wearing a hat',
      model: 'dall-e-2',
      n: 2,
      size: '512x512',
      user: 'end-user-1',
    });
    expect(res.data).toHaveLength(2);
    expect(res.data![0]!.url).toMatch(/\/fake-files\/image-0\.png$/);
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/images/edits');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream');
    expect(sent.fields).toMatchObject({ prompt: 'a cat wearing a hat', model: 'dall-e-2', n: '2', size: '512x512', user: 'end-user-1' });
    expect(sent.files).toEqual([
      { field: 'image', filename: 'cat.png', contentType: 'image/png', size: FAKE_PNG.length, sha256: sha(FAKE_PNG) },
      { field: 'mask', filename: 'mask.png', contentType: 'image/png', size: MASK.length, sha256: sha(MASK) },
    ]);
    await expectCharged(c, before, dalle2('512x512', 2), 'dall-e-2', 2);
  });

  it('relays a variation with b64_json and charges it', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    const res = await c.client.images.createVariation({ image: await toFile(FAKE_PNG, 'v.png', { type: 'image/png' }), n: 1, size: '256x256', response_format: 'b64_json' });
    expect(res.data![0]!.b64_json).toBe(FAKE_PNG.toString('base64'));
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe('/v1/images/variations');
    expect(sent.files?.[0]?.sha256).toBe(sha(FAKE_PNG));
    await expectCharged(c, before, dalle2('256x256', 1), 'dall-e-2', 1);
  });

  it('an upstream refusal is passed on in OpenAI’s shape and nothing is charged', async () => {
    const c = await addCaller(h);
    const before = await balances(h, c);
    // A JPEG-looking file: dall-e-2 takes PNG only, so OpenAI (the fake) refuses it.
    const err = await failed(c.client.images.edit({ image: await toFile(Buffer.from('not a png at all'), 'x.jpg', { type: 'image/jpeg' }), prompt: 'x' }));
    expect(err.status).toBe(400);
    expect(err.error).toMatchObject({ type: 'invalid_request_error', param: 'image' });
    expect(String(err.error.message)).toMatch(/^Uploaded image must be a PNG and less than 4 MB\./);
    await expectNothingCharged(c, before);
  });

  it('Azure: edits go to the deployment path with api-key; image[] uploads arrive intact', async () => {
    const c = await addCaller(h, { group: 'vip' });
    const before = await balances(h, c);
    const second = Buffer.concat([FAKE_PNG, Buffer.from('second')]);
    const res = await c.client.images.edit({
      image: [await toFile(FAKE_PNG, 'a.png', { type: 'image/png' }), await toFile(second, 'b.png', { type: 'image/png' })],
      prompt: 'merge these',
      model: 'gpt-image-1',
    });
    expect(res.data![0]!.b64_json).toBe(FAKE_PNG.toString('base64'));
    const sent = h.fake.requests.at(-1)!;
    expect(sent.path).toBe('/openai/deployments/gpt-image-1/images/edits');
    expect(sent.query['api-version']).toBe('2025-04-01-preview');
    expect(sent.headers['api-key']).toBe('azure-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.files?.map((f) => [f.field, f.sha256])).toEqual([
      ['image[]', sha(FAKE_PNG)],
      ['image[]', sha(second)],
    ]);
    // ModelPrice $0.04 per image × 500 000 (size 1024x1024, n 1).
    await expectCharged(c, before, 20_000, 'gpt-image-1', 1);
  });

  it('Azure has no variations endpoint: a clear 501 naming the mode, nothing charged', async () => {
    const c = await addCaller(h, { group: 'vip' });
    const before = await balances(h, c);
    const sentBefore = h.fake.requests.length;
    const err = await failed(c.client.images.createVariation({ image: await toFile(FAKE_PNG, 'v.png', { type: 'image/png' }) }));
    expect(err.status).toBe(501);
    expect(err.error).toMatchObject({ code: 'channel_unsupported' });
    expect(String(err.error.message)).toContain('image-variations');
    expect(h.fake.requests.length).toBe(sentBefore);
    await expectNothingCharged(c, before);
  });

  describe('bad input: 400 in OpenAI’s error shape, nothing sent or charged', () => {
    const post = (c: TestCaller, path: string, body: FormData | string, headers: Record<string, string> = {}) =>
      fetch(`${h.server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer sk-${c.key}`, ...headers }, body });

    it.each([
      ['no image part', '/v1/images/edits', () => withFields({ prompt: 'x', model: 'dall-e-2' }), 'image'],
      ['an empty image part', '/v1/images/variations', () => withFile('image', Buffer.alloc(0)), 'image'],
      ['no prompt on an edit', '/v1/images/edits', () => withFile('image', FAKE_PNG), 'prompt'],
      ['a dall-e-2 image over 4 MB', '/v1/images/edits', () => withFile('image', Buffer.alloc(4 * 1024 * 1024 + 1, 1), { prompt: 'x' }), 'image'],
      ['n out of range', '/v1/images/variations', () => withFile('image', FAKE_PNG, { n: '11' }), 'n'],
    ])('%s', async (_name, path, form, param) => {
      const c = await addCaller(h);
      const before = await balances(h, c);
      const sentBefore = h.fake.requests.length;
      const res = await post(c, path, form());
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: Record<string, unknown> };
      expect(body.error).toMatchObject({ type: 'invalid_request_error', param });
      expect(typeof body.error.message).toBe('string');
      expect(h.fake.requests.length).toBe(sentBefore);
      await expectNothingCharged(c, before);
    });

    it('a JSON body is refused: the endpoint takes multipart/form-data', async () => {
      const c = await addCaller(h);
      const before = await balances(h, c);
      const res = await post(c, '/v1/images/edits', JSON.stringify({ prompt: 'x', image: 'cat.png' }), { 'content-type': 'application/json' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe('the request must be multipart/form-data');
      await expectNothingCharged(c, before);
    });
  });
});

function withFields(fields: Record<string, string>): FormData {
  const f = new FormData();
  for (const [k, v] of Object.entries(fields)) f.set(k, v);
  return f;
}

function withFile(name: string, data: Buffer, fields: Record<string, string> = {}): FormData {
  const f = withFields(fields);
  f.set(name, new File([data], 'x.png', { type: 'image/png' }));
  return f;
}
