import { describe, expect, it } from 'vitest';
import { IpMatcher, parseIpList } from '../http/ip-list.js';
import { addressAllowed } from './address-policy.js';

describe('outbound address policy', () => {
  it('lets public IPv4 and IPv6 addresses through', () => {
    // node's BlockList would match these against an IPv6 ::ffff:0:0/96 rule: the lists are kept per family.
    for (const a of ['8.8.8.8', '1.1.1.1', '93.184.216.34', '100.128.0.1', '172.32.0.1', '2606:4700::1111', '2a00:1450:4001::200e']) expect([a, addressAllowed(a)]).toEqual([a, true]);
  });

  it('refuses this host, private networks, metadata, CGNAT, multicast, reserved ranges and IPv6 forms carrying IPv4', () => {
    const refused = [
      '0.0.0.0', '0.1.2.3', '10.0.0.1', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.255.255.254', '169.254.169.254', '172.16.0.1', '172.31.255.255',
      '192.168.0.1', '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.255', '198.18.0.1', '192.0.2.1',
      '::', '::1', '::7f00:1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:8.8.8.8', '::ffff:a9fe:a9fe', '64:ff9b::a00:1', '64:ff9b::808:808',
      '2002:c0a8:101::1', '2001:0:4136:e378::1', 'fc00::1', 'fd00:ec2::254', 'fe80::1', 'ff02::1', '2001:db8::1', 'not-an-ip', '',
    ];
    for (const a of refused) expect([a, addressAllowed(a)]).toEqual([a, false]);
  });

  it('lets the operator open a range, and only that range', () => {
    const allow = new IpMatcher(parseIpList('10.0.0.0/8, fd12::/16').ranges);
    expect(['10.9.8.7', '::ffff:10.9.8.7', 'fd12::5', '10.255.255.255'].map((a) => addressAllowed(a, allow))).toEqual([true, true, true, true]);
    expect(['11.0.0.1', '127.0.0.1', '169.254.169.254', 'fd13::5'].map((a) => addressAllowed(a, allow))).toEqual([true, false, false, false]);
  });
});
