import type { UpstreamFailed } from '../../relay/upstream-client.js';
import { targetRefused, transportFailure, type UpstreamFailure } from './upstream-failure.js';

/**
 * A failed probe exchange (channel test, balance, model list) in the words an admin may see: a
 * status or transport code, never the upstream's text. `notJson` names an unparsable reply the way
 * each probe has always said it. `url` is the address asked: a 404 names it, since a wrong path
 * (a base URL ending in `/v1` doubled, a proxy's prefix missing) is then the likely cause.
 */
export function probeFailure(f: UpstreamFailed, notJson: string, timeoutMs: number, url?: string): UpstreamFailure {
  switch (f.stage) {
    case 'transport':
    case 'read':
      return transportFailure(f.cause, timeoutMs);
    case 'sign':
      // A token exchange the connect-time guard refused is a refused target, like a refused probe.
      return targetRefused(f.cause) ? { code: 'CHANNEL_TARGET_REFUSED', detail: '' } : { code: 'CHANNEL_UPSTREAM_STATUS', detail: `HTTP ${f.error.status}` };
    case 'status':
      return { code: 'CHANNEL_UPSTREAM_STATUS', detail: f.upstreamStatus === 404 && url ? `HTTP 404 ${shownUrl(url)}` : `HTTP ${f.upstreamStatus}` };
    case 'error-reply':
      return { code: 'CHANNEL_UPSTREAM_BAD_RESPONSE', detail: `HTTP ${f.upstreamStatus}: error object` };
    case 'not-json':
      return { code: 'CHANNEL_UPSTREAM_BAD_RESPONSE', detail: notJson };
  }
}

/**
 * What the upstream said, for the log and root's excerpt: the message the relay would answer a
 * caller with (the adapter's reading of the error), or the transport's own error.
 */
export function probeWords(f: UpstreamFailed, timeoutMs: number): string {
  if (f.stage === 'transport' || f.stage === 'read') {
    const err = f.cause as Error;
    return err.name === 'TimeoutError' ? transportFailure(err, timeoutMs).detail : err.message;
  }
  return f.error.message;
}

/**
 * The address asked, as an admin may see it: scheme, host and path only — the query can carry the
 * key (PaLM's `?key=`) or a signature; the admin typed the rest themselves.
 */
export function shownUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname}`;
  } catch {
    return '';
  }
}
