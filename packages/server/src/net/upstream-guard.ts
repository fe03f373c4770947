import { isIP, type LookupFunction } from 'node:net';
import type { buildConnector } from 'undici';
import type { IpMatcher } from '../http/ip-list.js';
import { addressAllowed, ipLiteral } from './address-policy.js';
import { resolveChecked } from './guarded-fetch.js';

/** The most a connection's lookup may take (the connect timeout starts after it). */
const LOOKUP_TIMEOUT_MS = 10_000;

/**
 * A channel's upstream refused at connect time. The message names no address (callers see it, or
 * a text derived from it); `host` and `address` are for the log.
 */
export class UpstreamTargetRefused extends Error {
  readonly code = 'ERR_UPSTREAM_TARGET_REFUSED';

  constructor(
    readonly host: string,
    readonly address: string,
  ) {
    super('the channel target is not an address channel requests may reach');
    this.name = 'UpstreamTargetRefused';
  }
}

/**
 * The connect-time check for channels whose target no root placed (docs/security.md, "Channel
 * targets"): a save can only judge what a name resolves to then, so each new connection to such
 * a channel's upstream resolves the host once, refuses it when any address is one the guarded client
 * refuses (`addressAllowed` with the operator's OutboundAllowedRanges), and connects to the address
 * it checked, so a second DNS answer cannot redirect it. Trusted channels never come here: their
 * pool is the relay's plain one, with nothing added per request.
 */
export class UpstreamGuard {
  /** The operator's allow list (OutboundAllowedRanges); none until the context sets it. */
  allow: () => IpMatcher | undefined = () => undefined;
  /** Told of every refusal with the address, for the operator's log. */
  onRefused: (host: string, address: string) => void = () => undefined;

  private refuse(host: string, address: string): UpstreamTargetRefused {
    this.onRefused(host, address);
    return new UpstreamTargetRefused(host, address);
  }

  /** The checked address to connect to for `hostname` (an IP literal is checked as it stands). */
  async address(hostname: string): Promise<string> {
    const { addresses, refused } = await resolveChecked(hostname, { allow: this.allow(), signal: AbortSignal.timeout(LOOKUP_TIMEOUT_MS) });
    if (refused !== undefined) throw this.refuse(hostname, refused);
    return addresses[0]!;
  }

  /**
   * A `lookup` for node's net and tls (the WebSocket upstreams). Node skips the lookup for an IP
   * literal, so a URL naming one is judged by `assertUrl` before dialling.
   */
  readonly lookup: LookupFunction = (hostname, options, callback) => {
    this.address(hostname).then(
      (address) => {
        const family = isIP(address);
        if (options.all) callback(null, [{ address, family }]);
        else callback(null, address, family);
      },
      (err: unknown) => callback(err as NodeJS.ErrnoException, '', 0),
    );
  };

  /** Throws when `url`'s host is an IP literal the policy refuses (a name is judged by `lookup` when dialled). */
  assertUrl(url: string): void {
    let host: string;
    try {
      host = new URL(url).hostname;
    } catch {
      return;
    }
    const literal = ipLiteral(host);
    if (literal && !addressAllowed(literal, this.allow())) throw this.refuse(host, literal);
  }

  /**
   * An undici connector that connects `inner` to the checked address. The name stays in `host`,
   * from which undici takes the TLS server name (SNI and the certificate check) and the session key.
   */
  connector(inner: buildConnector.connector): buildConnector.connector {
    return (opts, callback) => {
      this.address(opts.hostname).then(
        (address) => inner({ ...opts, hostname: address }, callback),
        (err: unknown) => callback(err as Error, null),
      );
    };
  }
}
