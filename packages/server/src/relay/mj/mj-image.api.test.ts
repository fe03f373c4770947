import { startFakeMj, type FakeMj } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { midjourneyTaskAdapter } from '../adapters/midjourney/task-adapter.js';
import { TaskPoller } from '../tasks/task-poller.js';
import { rootClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { rasterOf } from './mj-image.js';

const IMAGINE = 50_000; // $0.1 × 500 000
const SVG = '<svg xmlns="http://www.w3.org/2000/svg" onload="fetch(\'/api/user/self\')"><script>alert(document.cookie)</script></svg>';
const HTML = '<!doctype html><html><body><script>alert(document.cookie)</script></body></html>';
const PNG_BYTES = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const API_CSP = "default-src 'none'; frame-ancestors 'none'; sandbox";

describe('task image sniffing', () => {
  const bytes = (...b: number[]) => Buffer.from([...b, ...new Array<number>(32).fill(0)]);
  it('passes raster formats whose label and first bytes agree, by their bytes', () => {
    expect(rasterOf('image/png', PNG_BYTES)).toEqual({ type: 'image/png', ext: 'png' });
    expect(rasterOf('image/jpeg; charset=binary', PNG_BYTES)).toEqual({ type: 'image/png', ext: 'png' });
    expect(rasterOf('image/jpg', bytes(0xff, 0xd8, 0xff, 0xe0))).toEqual({ type: 'image/jpeg', ext: 'jpg' });
    expect(rasterOf('image/gif', Buffer.from('GIF89a\x01\x00\x01\x00', 'latin1'))).toEqual({ type: 'image/gif', ext: 'gif' });
    expect(rasterOf('image/webp', Buffer.from('RIFF\x24\x00\x00\x00WEBPVP8 ', 'latin1'))).toEqual({ type: 'image/webp', ext: 'webp' });
    expect(rasterOf('image/avif', Buffer.from('\x00\x00\x00\x1cftypavif\x00\x00\x00\x00avifmif1', 'latin1'))).toEqual({ type: 'image/avif', ext: 'avif' });
    const bmp = Buffer.alloc(40);
    bmp.write('BM', 0, 'latin1');
    bmp.writeUInt32LE(40, 14);
    expect(rasterOf('image/bmp', bmp)).toEqual({ type: 'image/bmp', ext: 'bmp' });
  });

  it('refuses SVG, HTML, XML and text however labelled, and raster bytes under a non-raster label', () => {
    expect(rasterOf('image/svg+xml', Buffer.from(SVG))).toBeNull();
    expect(rasterOf('image/png', Buffer.from(SVG))).toBeNull();
    expect(rasterOf('image/png', Buffer.from(HTML))).toBeNull();
    expect(rasterOf('image/gif', Buffer.from('<?xml version="1.0"?><svg/>'))).toBeNull();
    expect(rasterOf('image/bmp', Buffer.from('BM is not a bitmap, just text that starts like one'))).toBeNull();
    expect(rasterOf('text/html', PNG_BYTES)).toBeNull();
    expect(rasterOf('image/svg+xml', PNG_BYTES)).toBeNull();
    expect(rasterOf(undefined, PNG_BYTES)).toBeNull();
    expect(rasterOf('application/octet-stream', PNG_BYTES)).toBeNull();
    expect(rasterOf('image/png', Buffer.alloc(0))).toBeNull();
  });
});

/**
 * Issue 29, stored XSS on the console's origin: a user posted `/mj/notify` with their own task's
 * id and an SVG image URL, and `/mj/image/{id}` served that SVG from ModelGate's origin as
 * `image/svg+xml` without a CSP. The images here come from the fake proxy's loopback listener,
 * which OutboundAllowedRanges lets the guarded fetch reach: only the raster rule stops them.
 */
describe.each(testDbKinds())('Midjourney task images on %s', (kind) => {
  let h: RelayHarness;
  let mj: FakeMj;
  let poller: TaskPoller;
  let alice: TestCaller;

  beforeAll(async () => {
    const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
    mj = await startFakeMj({ secret: 'mj-secret', stepMs: 20 });
    mj.files.set('/evil.svg', { contentType: 'image/svg+xml', body: SVG });
    mj.files.set('/evil.png', { contentType: 'image/png', body: HTML });
    mj.files.set('/png-as-svg', { contentType: 'image/svg+xml', body: PNG_BYTES });
    mj.files.set('/good.png', { contentType: 'image/png', body: PNG_BYTES });
    mj.files.set('/png-as-jpeg', { contentType: 'image/jpeg', body: PNG_BYTES });
    const root = await rootClient(server.url);
    h = { server, root, fake: undefined as never, close: async () => undefined };
    await addChannel(root, { type: 5, key: 'mj-secret', base_url: mj.url, models: 'mj_imagine' });
    expect((await root.put('/api/option/', { key: 'OutboundAllowedRanges', value: '127.0.0.1/32' })).body.success).toBe(true);
    poller = new TaskPoller(server.ctx, midjourneyTaskAdapter);
    alice = await addCaller(h, { quota: 1_000_000, remain: 1_000_000 });
  });
  afterAll(async () => {
    await mj?.close();
    await h?.server.close();
  });

  const submit = async () => {
    const res = await fetch(`${h.server.url}/mj/submit/imagine`, { method: 'POST', headers: { 'content-type': 'application/json', 'mj-api-secret': `sk-${alice.key}` }, body: JSON.stringify({ prompt: 'a cat' }) });
    const body = (await res.json()) as { code: number; result: string };
    expect(body.code).toBe(1);
    return body.result;
  };
  const row = (id: string) => h.server.ctx.db.db.selectFrom('midjourneys').select(['status', 'progress', 'image_url', 'buttons']).where('mj_id', '=', id).executeTakeFirstOrThrow();
  const done = async (id: string) => {
    for (let i = 0; i < 100; i++) {
      await poller.runOnce();
      if ((await row(id)).status === 'SUCCESS') return row(id);
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`task ${id} never finished`);
  };
  const image = async (id: string) => {
    const res = await fetch(`${h.server.url}/mj/image/${id}`);
    return { res, bytes: Buffer.from(await res.arrayBuffer()) };
  };

  it('the attack: a notify with the task\u2019s own key and an SVG image URL is refused and changes nothing', async () => {
    const before = await balances(h, alice);
    const id = await submit();
    const stored = await row(id);
    const attack = { id, imageUrl: `${mj.url}/evil.svg`, status: 'SUCCESS', progress: '100%', buttons: [{ customId: 'MJ::JOB::upsample::1::x', label: 'U1' }] };
    for (const headers of [{ 'mj-api-secret': `sk-${alice.key}` }, { authorization: `Bearer sk-${alice.key}` }, {}] as Array<Record<string, string>>) {
      const res = await fetch(`${h.server.url}/mj/notify`, { method: 'POST', headers: { 'content-type': 'application/json', 'accept-language': 'en', ...headers }, body: JSON.stringify(attack) });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ code: 4, description: 'Task notifications are accepted only on the signed callback URL the gateway gave the drawing proxy; task status comes from polling the upstream', result: null });
    }
    // A made-up signature is no better than none.
    const channel = (await h.server.ctx.db.db.selectFrom('midjourneys').select('channel_id').where('mj_id', '=', id).executeTakeFirstOrThrow()).channel_id;
    const forged = await fetch(`${h.server.url}/mj-fast/mj/notify?user=${alice.userId}&channel=${channel}&nonce=abc&sig=${'A'.repeat(43)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(attack) });
    expect(forged.status).toBe(400);
    expect(await row(id)).toEqual(stored);
    expect(stored).toMatchObject({ status: 'SUBMITTED', progress: '0%', image_url: '' });
    const img = await image(id);
    expect(img.res.status).toBe(404);
    expect(img.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(img.res.headers.get('content-security-policy')).toBe(API_CSP);
    // The task goes on as the upstream says, with the upstream's own PNG.
    const finished = await done(id);
    expect(finished.image_url).toBe(`${mj.url}/attachments/${id}.png`);
    expect((await image(id)).res.headers.get('content-type')).toBe('image/png');
    expect(await balances(h, alice)).toEqual({ ...before, quota: before.quota - IMAGINE, userUsed: before.userUsed + IMAGINE, requests: before.requests + 1, remain: before.remain - IMAGINE, tokenUsed: before.tokenUsed + IMAGINE });
  });

  it('an SVG, or HTML labelled image/png, that the proxy itself reports is not served', async () => {
    for (const path of ['/evil.svg', '/evil.png', '/png-as-svg']) {
      mj.imageUrl = `${mj.url}${path}`;
      const id = await submit();
      expect((await done(id)).image_url).toBe(mj.imageUrl);
      for (const lang of ['zh', 'en'] as const) {
        const res = await fetch(`${h.server.url}/mj/image/${id}`, { headers: { 'accept-language': lang } });
        expect(res.status, path).toBe(502);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(res.headers.get('content-security-policy')).toBe(API_CSP);
        expect(res.headers.get('x-frame-options')).toBe('DENY');
        expect(res.headers.get('x-content-type-options')).toBe('nosniff');
        const body = (await res.json()) as { code: number; description: string };
        expect(body).toEqual({
          code: 9,
          result: null,
          description: lang === 'en' ? 'The task image is not a supported raster image (png, jpeg, gif, webp, avif, bmp) and is not forwarded' : '任务图片不是受支持的位图格式（png、jpeg、gif、webp、avif、bmp），已拒绝转发',
        });
      }
    }
    mj.imageUrl = null;
  });

  it('a PNG is served sandboxed, unsniffable and named as a file; its type is what its bytes are', async () => {
    for (const path of ['/good.png', '/png-as-jpeg']) {
      mj.imageUrl = `${mj.url}${path}`;
      const id = await submit();
      await done(id);
      const { res, bytes } = await image(id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('image/png');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-disposition')).toBe(`inline; filename="${id}.png"`);
      expect(res.headers.get('cache-control')).toBe('public, max-age=600');
      expect(bytes.equals(PNG_BYTES)).toBe(true);
    }
    mj.imageUrl = null;
  });

  it('an image URL that is not http(s) is never stored, shown or fetched', async () => {
    for (const bad of ['javascript:alert(document.cookie)', 'data:image/svg+xml,<svg onload=alert(1)>', 'file:///etc/passwd', '//evil.example/x.png']) {
      mj.imageUrl = bad;
      const id = await submit();
      const finished = await done(id);
      expect(finished.image_url, bad).toBe('');
      const fetched = await fetch(`${h.server.url}/mj/task/${id}/fetch`, { headers: { authorization: `Bearer sk-${alice.key}` } });
      expect(((await fetched.json()) as { imageUrl: string }).imageUrl).toBe('');
      expect((await image(id)).res.status).toBe(404);
    }
    mj.imageUrl = null;
    // A row written before the rule (or imported) is not fetched either.
    const id = await submit();
    await done(id);
    await h.server.ctx.db.db.updateTable('midjourneys').set({ image_url: 'javascript:alert(1)' }).where('mj_id', '=', id).execute();
    const old = await image(id);
    expect(old.res.status).toBe(502);
    expect(JSON.parse(old.bytes.toString())).toEqual({ code: 9, description: expect.stringMatching(/^image fetch refused: javascript: URLs are not fetched/), result: null });
    const list = await h.root.get(`/api/mj/?p=0&mj_id=${id}`);
    expect((list.body.data as Array<{ image_url: string }>)[0]!.image_url).toBe('');
  });
});
