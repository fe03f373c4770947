import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { FAKE_MP4, startFakeSora, type FakeSora } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, rootClient, type ApiClient } from '../../test-support/api-client.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { startTestServer } from '../../test-support/test-server.js';
import { expectedVideoQuota } from '../../test-support/video-cases.js';
import { TaskPoller } from '../tasks/task-poller.js';
import { videoTaskAdapter } from './video-kind.js';

/**
 * Attacks on the video content route and the console's own doors (issue 34): an upstream that
 * points the finished video at this host's network or the cloud metadata address, an upstream
 * that serves HTML as the "video", a forged or swapped preview link, and the session submit.
 */
let h: RelayHarness;
let sora: FakeSora;
let victim: Server;
let victimHits = 0;
let poller: TaskPoller;
let alice: TestCaller;
let console_: ApiClient;
const QUOTA = expectedVideoQuota({ model: 'sora-2', plan: { seconds: 4, resolution: '720p' } });

beforeAll(async () => {
  const server = await startTestServer({ env: { UPDATE_TASK: 'false' } });
  sora = await startFakeSora({ key: 'sk-up', stepMs: 10 });
  // Plays a service on this host that no upstream may make the gateway fetch (127.0.0.2 is loopback too, but not allowed below).
  victim = createServer((_req, res) => {
    victimHits += 1;
    res.end('secret');
  });
  await new Promise<void>((r) => victim.listen(0, '127.0.0.2', r));
  const root = await rootClient(server.url);
  h = { server, root, fake: undefined as never, close: async () => undefined };
  await addChannel(root, { type: 55, key: 'sk-up', base_url: sora.url, models: 'sora-2' });
  await server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
  poller = new TaskPoller(server.ctx, videoTaskAdapter);
  alice = await addCaller(h, { quota: 10_000_000, remain: 10_000_000 });
  console_ = await newUser(server.url, 'vidfan');
  await server.ctx.quotaLedger.move({ kind: 'test', userId: console_.userId!, quota: 10_000_000 });
});
afterAll(async () => {
  await sora?.close();
  await new Promise((r) => victim?.close(r));
  await h?.server.close();
});

async function finished(prompt = 'a quiet harbour'): Promise<string> {
  const res = await fetch(`${h.server.url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer sk-${alice.key}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt }) });
  const id = ((await res.json()) as { id: string }).id;
  await new Promise((r) => setTimeout(r, 50));
  await poller.runOnce();
  return id;
}

const content = (id: string) => fetch(`${h.server.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer sk-${alice.key}`, 'accept-language': 'en' } });

describe('video content', () => {
  it('refuses to follow an upstream to the cloud metadata address or an unlisted loopback address', async () => {
    const id = await finished();
    for (const target of ['http://169.254.169.254/latest/meta-data/', `http://127.0.0.2:${(victim.address() as AddressInfo).port}/video.mp4`]) {
      sora.videoUrl = target;
      const res = await content(id);
      expect(res.status).toBe(502);
      expect(((await res.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'video_content_failed', message: expect.stringMatching(/could not be fetched/) });
    }
    sora.videoUrl = undefined;
    expect(victimHits).toBe(0);
    expect((await content(id)).status).toBe(200);
  });

  it('serves an upstream’s HTML as an inert download, never as a page', async () => {
    const id = await finished();
    sora.content = { type: 'text/html; charset=utf-8', body: Buffer.from('<html><script>fetch("/api/user/self")</script></html>') };
    try {
      const res = await content(id);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('application/octet-stream');
      expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="video_[0-9a-f]+\.bin"$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
    } finally {
      sora.content = undefined;
    }
  });

  it('the console previews by a signed link from its own list; a forged or swapped link is no video', async () => {
    const id = await finished();
    const other = await finished('another one');
    const rows = (await h.root.get('/api/task/?p=0&task_id=' + id)).body.data as Array<{ task_id: string; video?: { preview_url: string; model: string } }>;
    const link = rows.find((r) => r.task_id === id)!.video!.preview_url;
    expect(link).toMatch(new RegExp(`^/api/task/${id}/content\\?exp=\\d+&sig=`));
    const ok = await fetch(`${h.server.url}${link}`);
    expect(ok.status).toBe(200);
    expect(Buffer.from(await ok.arrayBuffer()).equals(FAKE_MP4)).toBe(true);
    expect((await fetch(`${h.server.url}${link.replace(id, other)}`)).status).toBe(404);
    expect((await fetch(`${h.server.url}${link.replace(/sig=[^&]+/, 'sig=AAAA')}`)).status).toBe(404);
    expect((await fetch(`${h.server.url}${link.replace(/exp=\d+/, 'exp=1')}`)).status).toBe(404);
    expect((await fetch(`${h.server.url}/api/task/${id}/content`)).status).toBe(404);
    // A user's own list has no link to another user's task.
    const own = (await console_.get(`/api/task/self?p=0&task_id=${id}`)).body.data as unknown[];
    expect(own).toEqual([]);
  });

  it('the console submits with its session, billed to the user alone (no token), and refuses a group the user may not use', async () => {
    const before = await h.server.ctx.db.db.selectFrom('users').select('quota').where('id', '=', console_.userId!).executeTakeFirstOrThrow();
    const sub = await console_.post('/pg/video/generations', { model: 'sora-2', prompt: 'a kite over the sea' });
    expect(sub.status, JSON.stringify(sub.body)).toBe(200);
    expect(sub.body).toMatchObject({ object: 'video', model: 'sora-2', status: 'queued' });
    const after = await h.server.ctx.db.db.selectFrom('users').select('quota').where('id', '=', console_.userId!).executeTakeFirstOrThrow();
    expect(Number(before.quota) - Number(after.quota)).toBe(QUOTA);
    const [log] = await consumeLogs(h, console_.userId!);
    expect(log).toMatchObject({ token_name: 'playground-default', quota: QUOTA, token_id: 0 });
    expect((await console_.post('/pg/video/generations', { model: 'sora-2', prompt: 'x', group: 'svip-only' })).status).toBe(403);
    const anonymous = await fetch(`${h.server.url}/pg/video/generations`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"model":"sora-2","prompt":"x"}' });
    expect(anonymous.status).toBe(401);
    expect((await balances(h, alice)).quota).toBeGreaterThan(0);
  });
});
