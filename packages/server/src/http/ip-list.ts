import { BlockList, isIP } from 'node:net';

/**
 * Lists of IP addresses and CIDR ranges (IPv4 and IPv6), used for TRUSTED_PROXIES and token IP
 * allow lists. One parser for both, so what start-up or a token save accepts is exactly what
 * matching understands. Matching is node:net's BlockList, which also matches an IPv4-mapped IPv6
 * peer (`::ffff:10.1.2.3`, what a dual-stack socket reports) against IPv4 entries.
 */

export interface IpRange {
  address: string;
  family: 'ipv4' | 'ipv6';
  /** Prefix length; a single address is a full-length prefix. */
  prefix: number;
}

/** Entries of a list separated by newlines, commas and/or spaces; empty pieces dropped. */
export function splitIpList(raw: string | null | undefined): string[] {
  return (raw ?? '').split(/[\s,]+/).filter(Boolean);
}

/** `10.1.2.3`, `10.0.0.0/8`, `2001:db8::1`, `2001:db8::/32`; null when it is none of these. */
export function parseIpEntry(entry: string): IpRange | null {
  const slash = entry.indexOf('/');
  const address = slash === -1 ? entry : entry.slice(0, slash);
  // Zone ids (`fe80::1%eth0`) name an interface of this host: meaningless in a shared list.
  if (address.includes('%')) return null;
  const version = isIP(address);
  if (version === 0) return null;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (slash === -1) return { address, family, prefix: max };
  const bits = entry.slice(slash + 1);
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) return null;
  return { address, family, prefix: Number(bits) };
}

/** Parses a list; `invalid` holds the entries that are neither an address nor a range, in order. */
export function parseIpList(raw: string | null | undefined): { ranges: IpRange[]; entries: string[]; invalid: string[] } {
  const entries = splitIpList(raw);
  const ranges: IpRange[] = [];
  const invalid: string[] = [];
  for (const entry of entries) {
    const r = parseIpEntry(entry);
    if (r) ranges.push(r);
    else invalid.push(entry);
  }
  return { ranges, entries, invalid };
}

/** Membership test over a fixed set of ranges. */
export class IpMatcher {
  private readonly list = new BlockList();
  readonly size: number;

  constructor(ranges: readonly IpRange[]) {
    for (const r of ranges) this.list.addSubnet(r.address, r.prefix, r.family);
    this.size = ranges.length;
  }

  /** True when `ip` (a peer address, possibly IPv4-mapped IPv6) falls in one of the ranges. */
  has(ip: string | undefined): boolean {
    if (!ip) return false;
    const at = ip.indexOf('%');
    const address = at === -1 ? ip : ip.slice(0, at);
    const version = isIP(address);
    if (version === 0) return false;
    return this.list.check(address, version === 4 ? 'ipv4' : 'ipv6');
  }
}
