import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { authGuards, caller } from '../../http/auth.js';
import { listParams, ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { VIDEO_PLATFORM } from '@modelgate/shared';
import { httpUrl, normalMj } from './mj-store.js';
import { previewUrl } from './video-preview.js';
import { videoProps } from './video-store.js';

type Deps = Pick<AppContext, 'db' | 'sessions' | 'users' | 'options' | 'secrets'>;

/** A timestamp filter; the task screen sends the literal `NaN` for "none" (G9). */
function time(v: string | undefined): number | undefined {
  if (v === undefined || v.trim() === '') return undefined;
  const n = Number(v);
  return Number.isFinite(n) ? Math.trunc(n) : undefined;
}

const text = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);

/** A video task's line in the list: what was asked, and the signed link the console previews it by once finished. */
function videoSummary(ctx: Pick<Deps, 'secrets'>, r: { task_id: string; status: string; properties: string }) {
  const p = videoProps(r);
  return { model: p.model, seconds: p.seconds, size: p.size, preview_url: r.status === 'SUCCESS' ? previewUrl(ctx, r.task_id) : '' };
}

/**
 * The drawing and async task lists (spec §7, console-api.md §5): list style, `p` from 0, newest
 * first; admins see every task and filter by channel, users their own. Drawing times are ms, task times seconds.
 */
export function tasksRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  const db = ctx.db.db;

  for (const [key, self] of [
    ['GET /api/mj/', false],
    ['GET /api/mj/self/', true],
  ] as const) {
    declare(key, {}, async (req) => {
      const q = req.query as { mj_id?: string; channel_id?: number; start_timestamp?: string; end_timestamp?: string };
      const { offset, size } = listParams(req.query);
      let sel = db.selectFrom('midjourneys').selectAll();
      if (self) sel = sel.where('user_id', '=', caller(req).id);
      else if (q.channel_id) sel = sel.where('channel_id', '=', q.channel_id);
      const mjId = text(q.mj_id);
      if (mjId) sel = sel.where('mj_id', '=', mjId);
      const start = time(q.start_timestamp);
      const end = time(q.end_timestamp);
      if (start !== undefined) sel = sel.where('submit_time', '>=', start);
      if (end !== undefined) sel = sel.where('submit_time', '<=', end);
      const rows = await sel.orderBy('id', 'desc').limit(size).offset(offset).execute();
      return ok(
        rows.map(normalMj).map((r) => ({
          id: Number(r.id),
          user_id: Number(r.user_id),
          submit_time: Number(r.submit_time),
          start_time: Number(r.start_time),
          finish_time: Number(r.finish_time),
          channel_id: self ? 0 : Number(r.channel_id),
          action: r.action,
          mj_id: r.mj_id,
          code: Number(r.code),
          status: r.status,
          progress: r.progress,
          // Same origin as the console (its CSP allows no http images): the gateway forwards the image.
          // Only http(s): rows older than that rule (or imported) may hold a `javascript:` link.
          image_url: !httpUrl(r.image_url) ? '' : ctx.options.bool('MjForwardUrlEnabled') ? `/mj/image/${encodeURIComponent(r.mj_id)}` : r.image_url,
          prompt: r.prompt,
          prompt_en: r.prompt_en,
          description: r.description,
          fail_reason: r.fail_reason,
          quota: Number(r.quota),
        })),
      );
    });
  }

  for (const [key, self] of [
    ['GET /api/task/', false],
    ['GET /api/task/self', true],
  ] as const) {
    declare(key, {}, async (req) => {
      const q = req.query as { task_id?: string; channel_id?: number; start_timestamp?: string; end_timestamp?: string };
      const { offset, size } = listParams(req.query);
      let sel = db.selectFrom('tasks').selectAll();
      if (self) sel = sel.where('user_id', '=', caller(req).id);
      else if (q.channel_id) sel = sel.where('channel_id', '=', q.channel_id);
      const taskId = text(q.task_id);
      if (taskId) sel = sel.where('task_id', '=', taskId);
      const start = time(q.start_timestamp);
      const end = time(q.end_timestamp);
      if (start !== undefined) sel = sel.where('submit_time', '>=', start);
      if (end !== undefined) sel = sel.where('submit_time', '<=', end);
      const rows = await sel.orderBy('id', 'desc').limit(size).offset(offset).execute();
      return ok(
        rows.map((r) => ({
          id: Number(r.id),
          user_id: Number(r.user_id),
          submit_time: Number(r.submit_time),
          start_time: Number(r.start_time),
          finish_time: Number(r.finish_time),
          progress: r.progress || '0%',
          channel_id: self ? 0 : Number(r.channel_id),
          platform: r.platform ?? '',
          action: r.action ?? '',
          task_id: r.task_id ?? '',
          status: r.status ?? '',
          fail_reason: r.fail_reason ?? '',
          quota: Number(r.quota),
          ...(r.platform === VIDEO_PLATFORM ? { video: videoSummary(ctx, r) } : {}),
        })),
      );
    });
  }
}
