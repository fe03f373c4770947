import { isRootRole } from '@modelgate/shared';
import { AppError } from '../../http/errors.js';
import { ipLiteral, outboundAllowList } from '../../net/address-policy.js';
import { OutboundError, resolveChecked } from '../../net/guarded-fetch.js';
import type { OptionsService } from '../options/options.service.js';

/** The most a base URL's lookup may hold up a save. */
const LOOKUP_TIMEOUT_MS = 5_000;
/** Schemes a channel's base URL or proxy is reached by (Spark and Realtime upstreams speak WebSocket). */
const NETWORK_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:', 'socks5:', 'socks5h:']);

/**
 * Where a channel points is the administrator's choice, but a non-root admin may not point one into
 * this server's own address space (loopback, private, link-local, cloud metadata: the ranges the
 * guarded client refuses): the relay would carry callers' prompts and the channel's key there, and
 * the channel probes (test, balance, model list) would let an admin scan the internal network.
 * Root may; a range listed in OutboundAllowedRanges is allowed for every admin.
 *
 * The check sees what the name resolves to now. A name that does not resolve is let through: the
 * channel is then saved as one no root placed, and each connection to it is checked when made
 * (net/upstream-guard.ts). The refusal names the host as typed, never what a name resolved to.
 */
export async function assertChannelTarget(options: Pick<OptionsService, 'str'>, target: string | null | undefined, callerRole: number): Promise<void> {
  if (isRootRole(callerRole)) return;
  const raw = (target ?? '').trim();
  if (!raw) return;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return;
  }
  if (!NETWORK_SCHEMES.has(url.protocol) || !url.hostname) return;
  let refused: string | undefined;
  try {
    ({ refused } = await resolveChecked(url.hostname, { allow: outboundAllowList(options), signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) }));
  } catch (err) {
    if (err instanceof OutboundError) return;
    throw err;
  }
  if (refused !== undefined) throw new AppError('CHANNEL_BASE_URL_PRIVATE', 200, ipLiteral(url.hostname) ?? url.hostname);
}
