import { isIP } from 'node:net';
import { IpMatcher, parseIpList } from '../http/ip-list.js';

/**
 * Addresses an outbound fetch that a user or a third party can influence must never reach
 * (docs/security.md#outbound-requests): this host, private networks, link-local and cloud metadata
 * endpoints, CGNAT, multicast, reserved and documentation ranges, and the IPv6 forms that embed or
 * translate an IPv4 address (IPv4-mapped, IPv4-compatible, NAT64, 6to4 and Teredo are refused whole).
 */
const BLOCKED_V4 = [
  '0.0.0.0/8', // "this network", incl. 0.0.0.0 (which reaches localhost on Linux)
  '10.0.0.0/8',
  '100.64.0.0/10', // CGNAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, incl. 169.254.169.254 (cloud metadata)
  '172.16.0.0/12',
  '192.0.0.0/24',
  '192.0.2.0/24',
  '192.88.99.0/24',
  '192.168.0.0/16',
  '198.18.0.0/15',
  '198.51.100.0/24',
  '203.0.113.0/24',
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, incl. 255.255.255.255
].join(',');

const BLOCKED_V6 = [
  '::/96', // unspecified, loopback and the deprecated IPv4-compatible form (::a.b.c.d)
  '::ffff:0:0/96', // IPv4-mapped, whatever IPv4 address it carries
  '64:ff9b::/96', // NAT64
  '64:ff9b:1::/48',
  '100::/64', // discard
  '2001::/32', // Teredo
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  'fc00::/7', // unique local, incl. fd00:ec2::254 (AWS metadata)
  'fe80::/10', // link-local
  'ff00::/8', // multicast
].join(',');

/*
 * Two lists, each asked only about its own family: node's BlockList matches an IPv4 address against
 * IPv6 rules through its IPv4-mapped form, so one list holding ::ffff:0:0/96 would refuse every
 * IPv4 address on the internet.
 */
const blockedV4 = new IpMatcher(parseIpList(BLOCKED_V4).ranges);
const blockedV6 = new IpMatcher(parseIpList(BLOCKED_V6).ranges);

/** An IP address literal without brackets or zone, else null. */
export function ipLiteral(hostname: string): string | null {
  const h = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(h) ? h : null;
}

/**
 * Whether an outbound connection may go to `address`: a public address, or one the operator listed
 * (the `OutboundAllowedRanges` option, e.g. an internal image server).
 */
export function addressAllowed(address: string, allow?: IpMatcher): boolean {
  if (allow?.has(address)) return true;
  const version = isIP(address);
  if (version === 4) return !blockedV4.has(address);
  return version === 6 && !blockedV6.has(address);
}

let cached: { raw: string; matcher: IpMatcher } | undefined;

/** The operator's allow list (option OutboundAllowedRanges) as a matcher, rebuilt when it changes. */
export function outboundAllowList(options: { str(key: 'OutboundAllowedRanges'): string }): IpMatcher {
  const raw = options.str('OutboundAllowedRanges');
  if (cached?.raw !== raw) cached = { raw, matcher: new IpMatcher(parseIpList(raw).ranges) };
  return cached.matcher;
}
