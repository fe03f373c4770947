import { ChannelType } from '@modelgate/shared';
import { makeServiceAccount } from '@modelgate/testkit';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { AppError } from '../http/errors.js';
import { providerCall, type ProviderHttp } from '../modules/oauth/provider-http.js';
import { discover } from '../modules/oauth/oidc.js';
import { adapterFor } from '../relay/adapters/registry.js';
import type { UpstreamCall } from '../relay/adapters/types.js';
import { fetchInlineImage } from '../relay/inline-image.js';
import { startSsrfTargets, type SsrfKind, type SsrfTargets } from '../test-support/ssrf-targets.js';
import { startTestServer, type TestServer } from '../test-support/test-server.js';
import { outboundAllowList } from './address-policy.js';
import { checkedUrl, OutboundError, resolveChecked, setOutboundResolver } from './guarded-fetch.js';
import { fetchMedia } from './media-fetch.js';

/**
 * Every outbound fetch a user or a third party configured by an admin can aim, run through the same
 * attacks: each address form that reaches this host, a private network or a metadata service;
 * schemes other than http(s); DNS rebinding; redirect chains into the private network or past three
 * hops; a body larger than the entry point accepts. Each entry point is called the way the server
 * calls it, with the server's own options (OutboundAllowedRanges = 127.0.0.2/32, the stand-in
 * "public" server: test-support/ssrf-targets.ts), and must refuse before anything reaches the victim
 * server on 127.0.0.1.
 */

type Outcome = { ok: true } | { ok: false; message: string };
interface EntryPoint {
  name: string;
  kind: SsrfKind;
  fetch(url: string): Promise<Outcome>;
}

let server: TestServer;
let t: SsrfTargets;
let nextId = 0;
const sa = makeServiceAccount({ tokenUri: '' });

const settle = async (work: () => unknown): Promise<Outcome> => {
  try {
    await work();
    return { ok: true };
  } catch (err) {
    return { ok: false, message: (err as Error).message };
  }
};

const oauthHttp = (): ProviderHttp => ({ timeoutMs: 5000, allow: () => outboundAllowList(server.ctx.options) });

const ENTRY_POINTS: EntryPoint[] = [
  {
    name: 'relay image URL inlining',
    kind: 'image',
    fetch: (url) => settle(() => fetchInlineImage(server.ctx, 'en', url, 'messages.0.content.1')),
  },
  {
    name: 'Midjourney task image (/mj/image/{id})',
    kind: 'image',
    async fetch(url) {
      const mjId = `ssrf-${++nextId}`;
      await server.ctx.db.db.insertInto('midjourneys').values({ mj_id: mjId, user_id: 1, image_url: url, status: 'SUCCESS', progress: '100%' }).execute();
      const res = await fetch(`${server.url}/mj/image/${mjId}`);
      if (res.status === 200) return { ok: true };
      return { ok: false, message: ((await res.json()) as { description: string }).description };
    },
  },
  {
    name: 'OAuth provider endpoint',
    kind: 'json',
    fetch: (url) => settle(() => providerCall(oauthHttp(), url, { method: 'POST', body: 'code=x' })),
  },
  {
    name: 'OIDC discovery document',
    kind: 'json',
    fetch: (url) => settle(() => discover(oauthHttp(), url)),
  },
  {
    name: 'download worker (WorkerUrl)',
    kind: 'image',
    async fetch(url) {
      try {
        await server.ctx.options.set('WorkerUrl', url);
      } catch (err) {
        // URL options take only http(s) without credentials: such a worker is refused when saved, so nothing is ever fetched through it.
        if (err instanceof AppError && err.code === 'OPTION_URL_INVALID') return { ok: false, message: `not fetched: ${err.message}` };
        throw err;
      }
      try {
        return await settle(() => fetchMedia(server.ctx.options, 'https://images.example/cat.png', { timeoutMs: 5000 }));
      } finally {
        await server.ctx.options.set('WorkerUrl', '');
      }
    },
  },
  {
    name: 'Vertex AI key token_uri',
    kind: 'json',
    fetch(url) {
      const call: UpstreamCall = {
        ch: { id: 1_000_000 + ++nextId, type: ChannelType.VertexAI, key: JSON.stringify({ ...sa.key, token_uri: url }), baseUrl: '', other: '', organization: '', setting: {} },
        mode: 'chat',
        inbound: 'openai-chat',
        upstream: 'gemini',
        model: 'gemini-2.0-flash',
        stream: false,
        clientHeaders: {},
        outboundAllow: () => outboundAllowList(server.ctx.options),
      };
      return settle(() => adapterFor(ChannelType.VertexAI)!.sign({ url: '', headers: {}, body: '' }, call));
    },
  },
];

const ADDRESS = /may not reach/;
const SCHEME = /not fetched|not a valid URL/;

/** Every refused form, by the reason the guard gives. `K` is the entry point's kind, `P` the servers' port. */
function refusedForms(P: number, K: SsrfKind): Array<[string, RegExp]> {
  const loopback = [
    `http://127.0.0.1:${P}/ok/${K}`,
    `http://localhost:${P}/ok/${K}`,
    `http://127.1:${P}/ok/${K}`, // short form
    `http://2130706433:${P}/ok/${K}`, // decimal
    `http://0177.0.0.1:${P}/ok/${K}`, // octal
    `http://0x7f.1:${P}/ok/${K}`, // hex, short
    `http://0x7f000001:${P}/ok/${K}`, // hex, whole
    `http://017700000001:${P}/ok/${K}`, // octal, whole
    `http://[::1]:${P}/ok/${K}`,
    `http://[::ffff:127.0.0.1]:${P}/ok/${K}`, // IPv4-mapped
    `http://[::ffff:7f00:1]:${P}/ok/${K}`, // IPv4-mapped, hex
    `http://mapped.test:${P}/ok/${K}`,
    `http://mixed.test:${P}/ok/${K}`, // one private address among public ones
  ];
  const elsewhere = [
    'http://0/',
    'http://0.0.0.0/',
    'http://[::]/',
    'http://10.1.2.3/',
    'http://172.16.0.1/',
    'http://172.31.255.254/',
    'http://192.168.1.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://169.254.1.1/',
    'http://[::ffff:169.254.169.254]/',
    'http://[::ffff:a9fe:a9fe]/',
    'http://[fd00:ec2::254]/',
    'http://[fc00::1]/',
    'http://[fe80::1]/',
    'http://100.64.0.1/', // CGNAT
    'http://100.127.255.254/',
    'http://224.0.0.1/',
    'http://239.255.255.250/',
    'http://[ff02::1]/',
    'http://255.255.255.255/',
    'http://[64:ff9b::7f00:1]/', // NAT64 of 127.0.0.1
    'http://[64:ff9b::a00:1]/', // NAT64 of 10.0.0.1
    'http://[2002:7f00:1::]/', // 6to4 of 127.0.0.1
    'http://[2002:c0a8:101::1]/', // 6to4 of 192.168.1.1
    'http://internal.test/',
    'http://metadata.test/latest/meta-data/',
    'http://v6local.test/',
  ];
  const schemes = ['file:///etc/passwd', 'ftp://public.test/x', 'data:text/plain,hi', 'gopher://public.test/', 'javascript:alert(1)', 'not a url', `http://user:pass@public.test:${P}/ok/${K}`];
  return [...loopback.map((u): [string, RegExp] => [u, ADDRESS]), ...elsewhere.map((u): [string, RegExp] => [u, ADDRESS]), ...schemes.map((u): [string, RegExp] => [u, SCHEME])];
}

/**
 * The guard's own verdict, asked before an entry point is: a form the policy would let through is a
 * failed test here, never a connection attempt to a private or metadata address from this machine.
 */
async function policyRefuses(url: string): Promise<boolean> {
  try {
    const u = checkedUrl(url);
    const { refused } = await resolveChecked(u.hostname, { allow: outboundAllowList(server.ctx.options), resolve: t.resolver });
    return refused !== undefined;
  } catch (err) {
    if (err instanceof OutboundError) return true;
    throw err;
  }
}

beforeAll(async () => {
  server = await startTestServer();
  t = await startSsrfTargets();
  setOutboundResolver(t.resolver);
  await server.ctx.options.set('OutboundAllowedRanges', '127.0.0.2/32');
});
afterAll(async () => {
  setOutboundResolver(undefined);
  await t?.close();
  await server?.close();
});
beforeEach(() => {
  t.publicSeen.length = 0;
  t.victimSeen.length = 0;
  t.lookups.clear();
});

describe.each(ENTRY_POINTS)('SSRF guard: $name', (entry) => {
  it('reaches a public server, by name, with the name in Host', async () => {
    expect(await entry.fetch(t.url('public.test', `/ok/${entry.kind}`))).toEqual({ ok: true });
    expect(t.publicSeen.map((r) => r.host)).toEqual([`public.test:${t.port}`]);
    expect(t.victimSeen).toEqual([]);
  });

  it('refuses every form of a loopback, private, link-local, metadata, CGNAT, multicast or broadcast address, and every scheme but http(s)', async () => {
    for (const [url, reason] of refusedForms(t.port, entry.kind)) {
      if (!(await policyRefuses(url))) throw new Error(`the address policy lets ${url} through`);
      const outcome = await entry.fetch(url);
      expect({ url, ok: outcome.ok }).toEqual({ url, ok: false });
      expect({ url, message: (outcome as { message: string }).message }).toEqual({ url, message: expect.stringMatching(reason) });
    }
    expect(t.victimSeen).toEqual([]);
    expect(t.publicSeen).toEqual([]);
  });

  it('connects to the address it checked: a second DNS answer (rebinding to 127.0.0.1) is never asked for', async () => {
    expect(await entry.fetch(t.url('rebind.test', `/ok/${entry.kind}`))).toEqual({ ok: true });
    expect(t.lookups.get('rebind.test')).toBe(1);
    expect(t.publicSeen.map((r) => r.host)).toEqual([`rebind.test:${t.port}`]);
    // The name now answers 127.0.0.1: refused, and still nothing reaches the victim.
    const again = await entry.fetch(t.url('rebind.test', `/ok/${entry.kind}?again`));
    expect(again).toEqual({ ok: false, message: expect.stringMatching(ADDRESS) });
    expect(t.victimSeen).toEqual([]);
  });

  it('follows up to three redirects, re-checking each target', async () => {
    expect(await entry.fetch(t.url('public.test', `/hop/3/${entry.kind}`))).toEqual({ ok: true });
    expect(t.publicSeen.map((r) => r.path)).toEqual([`/hop/3/${entry.kind}`, `/hop/2/${entry.kind}`, `/hop/1/${entry.kind}`, `/hop/0/${entry.kind}`]);
    expect(await entry.fetch(t.url('public.test', `/hop/4/${entry.kind}`))).toEqual({ ok: false, message: expect.stringMatching(/more than 3 redirects/) });
    expect(await entry.fetch(t.url('public.test', `/to-private/${entry.kind}`))).toEqual({ ok: false, message: expect.stringMatching(/127\.0\.0\.1.*may not reach/) });
    expect(await entry.fetch(t.url('public.test', `/to-metadata/${entry.kind}`))).toEqual({ ok: false, message: expect.stringMatching(/169\.254\.169\.254.*may not reach/) });
    expect(await entry.fetch(t.url('public.test', `/to-file/${entry.kind}`))).toEqual({ ok: false, message: expect.stringMatching(SCHEME) });
    expect(t.victimSeen).toEqual([]);
  });

  it('refuses a body larger than the entry point takes, on the announced length', async () => {
    expect(await entry.fetch(t.url('public.test', `/huge/${entry.kind}`))).toEqual({ ok: false, message: expect.stringMatching(/announced 67108864 bytes, more than \d+/) });
  });
});
