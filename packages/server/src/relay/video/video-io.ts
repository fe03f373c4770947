import type { AppContext } from '../../context.js';
import { OutboundError } from '../../net/guarded-fetch.js';
import { fetchMedia } from '../../net/media-fetch.js';
import { rasterOf } from '../mj/mj-image.js';
import { dataUrlParts } from './video-http.js';
import { VIDEO_IMAGE_MAX_MB } from './video-request.js';
import { VideoUpstreamError, type VideoIO } from './video-types.js';

const IMAGE_TIMEOUT_MS = 20_000;

/**
 * The gateway's side of a provider's submit: a reference image the caller gave as a URL, fetched
 * for an upstream that takes images inline only. The URL is the caller's: it goes through the
 * SSRF-guarded client (or the operator's download worker), and only a raster image, checked by
 * its bytes, is passed on.
 */
export function videoIO(ctx: Pick<AppContext, 'options'>): VideoIO {
  return {
    async imageBytes(url) {
      const inline = dataUrlParts(url);
      if (inline) return inline;
      let res;
      try {
        res = await fetchMedia(ctx.options, url, { maxBytes: VIDEO_IMAGE_MAX_MB * 1024 * 1024, timeoutMs: IMAGE_TIMEOUT_MS, headers: { accept: 'image/*' } });
      } catch (err) {
        if (err instanceof OutboundError) throw new VideoUpstreamError(400, 'image_fetch_refused', `the reference image could not be fetched: ${err.message}`);
        throw err;
      }
      if (res.status !== 200) throw new VideoUpstreamError(400, 'image_fetch_failed', `the reference image URL answered ${res.status}`);
      const raster = rasterOf(res.headers['content-type'], res.body);
      if (!raster) throw new VideoUpstreamError(400, 'image_not_raster', 'the reference image is not a raster image');
      return { mimeType: raster.type, base64: res.body.toString('base64') };
    },
  };
}
