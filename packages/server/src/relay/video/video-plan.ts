import { resolutionTier } from '@modelgate/shared';
import { VideoInputError, type VideoPlan, type VideoRequest } from './video-types.js';

/**
 * Helpers the providers decide a plan with: a duration and a size the model makes, or a refusal
 * naming what it makes (the caller's error, before anything is reserved or sent).
 */

/** `asked` when the model makes it, the default when nothing was asked; else refused. */
export function pickSeconds(asked: number | undefined, allowed: readonly number[], fallback: number): number {
  if (asked === undefined) return fallback;
  if (allowed.includes(asked)) return asked;
  throw new VideoInputError('seconds', allowed.map((s) => `${s} s`).join(', '));
}

/** `1280*720`, `1280×720`, `1280X720` → `1280x720`; tiers lower-cased (`720P` → `720p`). */
export function normalSize(text: string): string {
  return text.trim().toLowerCase().replace(/\s+/g, '').replace(/[*×:]/g, 'x');
}

/**
 * The size to make: `allowed` holds sizes (`1280x720`) or tiers (`720p`), the first of them the
 * default. A size asked for is taken as it is when allowed, else by its tier when the provider
 * names tiers; a tier asked for picks the first allowed size of that tier.
 */
export function pickSize(asked: string | undefined, allowed: readonly string[], fallback = allowed[0]!): string {
  if (asked === undefined) return fallback;
  const want = normalSize(asked);
  const exact = allowed.find((a) => normalSize(a) === want);
  if (exact) return exact;
  const tier = resolutionTier(want);
  const byTier = tier ? allowed.find((a) => resolutionTier(a) === tier) : undefined;
  if (byTier) return byTier;
  throw new VideoInputError('size', allowed.join(', '));
}

/** At most `max` reference images. */
export function checkImages(req: Pick<VideoRequest, 'images'>, max: number): void {
  if (req.images.length > max) throw new VideoInputError('images', String(max));
}

/** The plan of a size or tier: its tier keys the price table. */
export function planOf(seconds: number, size: string): VideoPlan {
  return { seconds, size, resolution: resolutionTier(size) ?? normalSize(size) };
}

/** The aspect ratio among `choices` (`16:9`, …) nearest to a `WxH` size; `fallback` for a tier or anything else. */
export function aspectOf(size: string | undefined, choices: readonly string[], fallback: string): string {
  const m = size ? /^(\d+)x(\d+)$/.exec(normalSize(size)) : null;
  if (!m) return fallback;
  const r = Number(m[1]) / Number(m[2]);
  let best = fallback;
  let gap = Infinity;
  for (const c of choices) {
    const [w, h] = c.split(':').map(Number);
    const d = Math.abs(Math.log(r / (w! / h!)));
    if (d < gap) {
      gap = d;
      best = c;
    }
  }
  return best;
}
