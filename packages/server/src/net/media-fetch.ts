import { outboundAllowList } from './address-policy.js';
import { guardedFetch, OutboundError, type GuardedFetchOptions, type GuardedResponse } from './guarded-fetch.js';

type MediaOptions = { str(key: 'OutboundAllowedRanges' | 'WorkerUrl' | 'WorkerValidKey'): string };
type FetchOptions = Pick<GuardedFetchOptions, 'headers' | 'maxBytes' | 'timeoutMs' | 'resolve'>;

/**
 * Downloads of caller-supplied media (image URLs inlined for an upstream, Midjourney results):
 * through the operator's download worker when WorkerUrl is set (reference `DoDownloadRequest`:
 * a JSON `{url, key, method, headers}` POSTed to the worker, which answers with the file), else
 * directly. Either way the request leaving this server goes through the SSRF-guarded client;
 * with a worker, the target itself is reached from the worker's network, not this one's.
 */
export async function fetchMedia(options: MediaOptions, url: string, opts: FetchOptions = {}): Promise<GuardedResponse> {
  const allow = outboundAllowList(options);
  const worker = options.str('WorkerUrl').trim();
  if (!worker) return guardedFetch(url, { ...opts, allow });

  let target: URL;
  try {
    target = new URL(url);
  } catch {
    throw new OutboundError('scheme', `${url} is not a URL`);
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new OutboundError('scheme', `${target.protocol} URLs are not fetched`);
  const body = JSON.stringify({ url: target.toString(), key: options.str('WorkerValidKey'), method: 'GET', headers: opts.headers ?? {} });
  return guardedFetch(worker.endsWith('/') ? worker : `${worker}/`, {
    ...opts,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    allow,
  });
}
