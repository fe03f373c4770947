import { FAKE_MP4 } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rootClient } from '../../test-support/api-client.js';
import { assertConforms, openapiAvailable } from '../../test-support/openapi-contract.js';
import { addCaller, addChannel, balances, consumeLogs, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { testDbKinds } from '../../test-support/test-db.js';
import { startTestServer } from '../../test-support/test-server.js';
import { expectedVideoQuota, VIDEO_CASES, type VideoCase, type VideoFake } from '../../test-support/video-cases.js';
import { TaskPoller } from '../tasks/task-poller.js';
import { videoTaskAdapter } from './video-kind.js';

/**
 * Every video provider through both surfaces against its fake, on every database: the unified
 * `/v1/video/generations` and OpenAI's `/v1/videos` (raw and through the official SDK), polled to
 * success and to failure, with the exact charge, the refund (once) and the logs; a content-policy
 * refusal costs nothing; another user's task id is no task at all.
 */
interface Json {
  [k: string]: unknown;
}

/**
 * OpenAI's spec, with one documented deviation: `size` lists Sora's four sizes only, and a video
 * another provider makes at another size (1920x1080) is reported as it is made.
 */
const SORA_SIZES = ['720x1280', '1280x720', '1024x1792', '1792x1024'];
function conformsVideo(body: unknown): void {
  if (!openapiAvailable) return;
  const size = (body as { size?: unknown }).size;
  if (typeof size === 'string' && !SORA_SIZES.includes(size)) {
    expect(size).toMatch(/^\d+x\d+$/);
    assertConforms('VideoResource', { ...(body as object), size: '1280x720' });
  } else assertConforms('VideoResource', body);
}

for (const kind of testDbKinds()) {
  describe.each(VIDEO_CASES)(`video: $name on ${kind}`, (vc: VideoCase) => {
    let h: RelayHarness;
    let fake: VideoFake;
    let poller: TaskPoller;
    let alice: TestCaller;
    let bob: TestCaller;
    const quota = expectedVideoQuota(vc);

    beforeAll(async () => {
      // Loading OpenAI's spec for the conformance checks blocks the loop for a while: lag shedding is not under test here.
      const server = await startTestServer({ kind, env: { UPDATE_TASK: 'false' } });
      fake = await vc.start();
      const root = await rootClient(server.url);
      h = { server, root, fake: undefined as never, close: async () => undefined };
      await addChannel(root, { ...vc.channel(fake), name: `video-${vc.name}` });
      // The fakes (and the URLs they hand out) are on loopback: the operator allows that address.
      await server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
      poller = new TaskPoller(server.ctx, videoTaskAdapter);
      alice = await addCaller(h, { quota: 50_000_000, remain: 50_000_000 });
      bob = await addCaller(h, { quota: 50_000_000, remain: 50_000_000 });
    });
    afterAll(async () => {
      await fake?.close();
      await h?.server.close();
    });

    const call = async (c: TestCaller, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${h.server.url}${path}`, {
        method,
        headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': 'en' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const text = await res.text();
      let json: Json = {};
      try {
        json = JSON.parse(text) as Json;
      } catch {
        json = { text };
      }
      return { status: res.status, body: json, headers: res.headers };
    };

    const until = async (c: TestCaller, id: string, status: string) => {
      for (let i = 0; i < 200; i++) {
        await poller.runOnce();
        const t = await call(c, 'GET', `/v1/video/generations/${id}`);
        if ((t.body.data as Json | undefined)?.status === status) return t.body.data as Json;
        await new Promise((r) => setTimeout(r, 15));
      }
      throw new Error(`task ${id} never reached ${status}`);
    };

    it('unified surface: charged per second at acceptance, polled to success, the video served safely', async () => {
      const before = await balances(h, alice);
      const sub = await call(alice, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'a lighthouse at dusk', ...vc.unified });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      expect(sub.body).toMatchObject({ object: 'video', model: vc.model, status: 'queued', progress: 0 });
      const id = sub.body.task_id as string;
      expect(id).toMatch(/^video_[0-9a-f]{32}$/);
      expect(sub.body.id).toBe(id);
      expect(await balances(h, alice)).toMatchObject({ quota: before.quota - quota, remain: before.remain - quota });
      const [log] = (await consumeLogs(h, alice.userId)).slice(-1);
      expect(log).toMatchObject({ model_name: vc.model, quota });
      expect(log!.content).toMatch(new RegExp(`^视频生成 ${vc.plan.seconds} 秒，分辨率 ${vc.plan.resolution}，每秒价格 \\S+，分组倍率 1.00$`));
      expect(JSON.parse(log!.other)).toMatchObject({ video: { seconds: vc.plan.seconds, resolution: vc.plan.resolution } });

      const done = await until(alice, id, 'SUCCESS');
      expect(done).toMatchObject({ task_id: id, progress: '100%', fail_reason: '', action: 'textGenerate' });
      const url = done.result_url as string;
      expect(url).toMatch(/^https?:\/\//);
      const res = await fetch(url.startsWith(h.server.url) ? url : `${h.server.url}/v1/videos/${id}/content`, { headers: { authorization: `Bearer sk-${alice.key}` } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('video/mp4');
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; sandbox");
      expect(Buffer.from(await res.arrayBuffer()).equals(FAKE_MP4)).toBe(true);
      // Nothing more was charged by polling or downloading.
      expect((await balances(h, alice)).quota).toBe(before.quota - quota);
    });

    it('OpenAI surface: the SDK creates, retrieves, lists and downloads; answers satisfy OpenAI’s spec', async () => {
      const before = await balances(h, alice);
      const created = await alice.client.videos.create({ model: vc.model, prompt: 'a paper boat in the rain', ...(vc.openai as object) } as Parameters<typeof alice.client.videos.create>[0]);
      expect(created).toMatchObject({ object: 'video', model: vc.model, status: 'queued', seconds: String(vc.plan.seconds) });
      conformsVideo(created);
      expect((await balances(h, alice)).quota).toBe(before.quota - quota);
      for (let i = 0; i < 200 && (await alice.client.videos.retrieve(created.id)).status !== 'completed'; i++) {
        await poller.runOnce();
        await new Promise((r) => setTimeout(r, 15));
      }
      const got = await alice.client.videos.retrieve(created.id);
      expect(got).toMatchObject({ id: created.id, status: 'completed', progress: 100, error: null });
      conformsVideo(got);
      const page = await alice.client.videos.list({ limit: 100 });
      expect(page.data.map((v) => v.id)).toContain(created.id);
      const content = await alice.client.videos.downloadContent(created.id);
      expect(Buffer.from(await content.arrayBuffer()).equals(FAKE_MP4)).toBe(true);
      const raw = await call(alice, 'POST', '/v1/videos', { model: vc.model, prompt: 'json body', ...vc.openai });
      expect(raw.status, JSON.stringify(raw.body)).toBe(200);
      conformsVideo(raw.body);
      expect((await balances(h, alice)).quota).toBe(before.quota - 2 * quota);
    });

    it('a failed video is refunded to the user exactly once, with two pollers racing', async () => {
      const before = await balances(h, bob);
      const logsBefore = (await consumeLogs(h, bob.userId)).length;
      const sub = await call(bob, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'explode the screen', ...vc.unified });
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);
      const id = sub.body.task_id as string;
      expect((await balances(h, bob)).quota).toBe(before.quota - quota);
      await new Promise((r) => setTimeout(r, 150));
      const runs = await Promise.all([poller.runOnce(), new TaskPoller(h.server.ctx, videoTaskAdapter).runOnce()]);
      const failed = await until(bob, id, 'FAILURE');
      expect(runs.reduce((n, r) => n + r.refunded, 0)).toBe(1);
      expect(failed).toMatchObject({ progress: '100%', result_url: '' });
      expect(String(failed.fail_reason).length).toBeGreaterThan(0);
      await poller.runOnce();
      // The user gets the charge back; the token's spending stays counted (the reference's rule).
      expect(await balances(h, bob)).toMatchObject({ quota: before.quota, userUsed: before.userUsed, remain: before.remain - quota });
      const refunds = await h.server.ctx.db.db.selectFrom('ledger_entries').select(['quota_delta', 'ref']).where('kind', '=', 'refund').where('user_id', '=', bob.userId).execute();
      expect(refunds.filter((r) => Number(r.quota_delta) === quota)).toHaveLength(1);
      const system = await h.server.ctx.logDb.db.selectFrom('logs').select(['content', 'quota']).where('user_id', '=', bob.userId).where('type', '=', 4).execute();
      expect(system).toContainEqual({ content: `异步任务执行失败 ${id}，补偿 ${quota}`, quota });
      expect((await consumeLogs(h, bob.userId)).length).toBe(logsBefore + 1);
      const v = await call(bob, 'GET', `/v1/videos/${id}`);
      expect(v.body).toMatchObject({ status: 'failed', error: { message: failed.fail_reason } });
      conformsVideo(v.body);
      expect((await call(bob, 'GET', `/v1/videos/${id}/content`)).status).toBe(404);
    });

    it('a content-policy refusal costs nothing in the end; bad input is refused in each surface’s envelope', async () => {
      let before = await balances(h, bob);
      if (vc.moderation === 'submit') {
        // Refused at submit: nothing reserved stays charged, no task is stored.
        const refused = await call(bob, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'something forbidden', ...vc.unified });
        expect(refused.status).toBe(400);
        expect(refused.body).toMatchObject({ code: 'video_moderation', data: null });
        expect(String(refused.body.message)).toMatch(/content policy/);
        const viaOpenAI = await call(bob, 'POST', '/v1/videos', { model: vc.model, prompt: 'forbidden again', ...vc.openai });
        expect(viaOpenAI).toMatchObject({ status: 400, body: { error: { code: 'video_moderation', type: 'invalid_request_error' } } });
        expect(await balances(h, bob)).toEqual(before);
      } else {
        // Judged on the result: the task fails with the provider's reason and the charge comes back.
        const sub = await call(bob, 'POST', '/v1/videos', { model: vc.model, prompt: 'something forbidden', ...vc.openai });
        expect(sub.status, JSON.stringify(sub.body)).toBe(200);
        expect((await balances(h, bob)).quota).toBe(before.quota - quota);
        await until(bob, sub.body.id as string, 'FAILURE');
        const v = await call(bob, 'GET', `/v1/videos/${sub.body.id as string}`);
        expect(v.body).toMatchObject({ status: 'failed', error: { code: 'moderation_blocked' } });
        expect((await balances(h, bob)).quota).toBe(before.quota);
        before = await balances(h, bob);
      }
      expect(await call(bob, 'POST', '/v1/video/generations', { model: vc.model })).toMatchObject({ status: 400, body: { code: 'video_prompt_required' } });
      expect(await call(bob, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'x', duration: 999 })).toMatchObject({ status: 400 });
      expect(await call(bob, 'POST', '/v1/videos', { model: vc.model, prompt: 'x'.repeat(32_001) })).toMatchObject({ status: 400, body: { error: { code: 'video_prompt_too_long' } } });
      expect(await call(bob, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'x', image: 'file:///etc/passwd' })).toMatchObject({ status: 400, body: { code: 'video_image_invalid' } });
      expect(await balances(h, bob)).toEqual(before);
    });

    it('another user’s task id is no task: fetch, content and delete all answer 404', async () => {
      const sub = await call(alice, 'POST', '/v1/video/generations', { model: vc.model, prompt: 'mine only', ...vc.unified });
      const id = sub.body.task_id as string;
      expect((await call(bob, 'GET', `/v1/video/generations/${id}`)).status).toBe(404);
      expect((await call(bob, 'GET', `/v1/videos/${id}`)).status).toBe(404);
      expect((await call(bob, 'GET', `/v1/videos/${id}/content`)).status).toBe(404);
      expect((await call(bob, 'DELETE', `/v1/videos/${id}`)).status).toBe(404);
      expect(((await call(bob, 'GET', '/v1/videos?limit=100')).body.data as Json[]).map((v) => v.id)).not.toContain(id);
      await until(alice, id, 'SUCCESS');
      const del = await call(alice, 'DELETE', `/v1/videos/${id}`);
      expect(del).toMatchObject({ status: 200, body: { id, object: 'video.deleted', deleted: true } });
      expect((await call(alice, 'GET', `/v1/videos/${id}`)).status).toBe(404);
    });
  });
}
