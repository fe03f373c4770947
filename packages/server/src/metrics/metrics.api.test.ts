import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

type Samples = Map<string, number>;

/** Prometheus text format → `name{a="1",b="2"}` (labels sorted) → value. */
function parse(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels = [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => `${l[1]}="${l[2]}"`).sort();
    out.set(labels.length ? `${m[1]}{${labels.join(',')}}` : m[1]!, Number(m[3]));
  }
  return out;
}

const key = (name: string, labels: Record<string, string | number>) =>
  `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .sort()
    .join(',')}}`;

describe('GET /metrics', () => {
  let h: RelayHarness;
  const token = 'metrics-secret-0123456789';
  beforeAll(async () => {
    h = await startRelayHarness();
    await priceModels(h, ['m-metrics-fail']);
  });
  afterAll(() => h.close());

  async function scrape(): Promise<Samples> {
    const res = await fetch(`${h.server.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parse(await res.text());
  }

  it('is off until the MetricsToken option is set, then asks for it', async () => {
    expect((await fetch(`${h.server.url}/metrics`)).status).toBe(404);
    expect((await h.root.put('/api/option/', { key: 'MetricsToken', value: token })).body.success).toBe(true);
    const anon = await fetch(`${h.server.url}/metrics`);
    expect(anon.status).toBe(401);
    expect(anon.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await fetch(`${h.server.url}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    // The token is a secret option: never echoed back, not even to root.
    const opts = await h.root.get('/api/option/');
    expect((opts.body.data as Array<{ key: string }>).some((o) => o.key === 'MetricsToken')).toBe(false);
  });

  it('moves with traffic: requests, tokens, quota, streams, refusals, upstream latency and HTTP answers', async () => {
    const channel = await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
    const c = await addCaller(h);
    const before = await scrape();
    await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'one' }] });
    const stream = await c.client.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'two' }] });
    for await (const chunk of stream) void chunk;
    // Refused before any channel: a model nobody serves, counted by route and status only.
    await expect(c.client.chat.completions.create({ model: 'no-such-model-xyz', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    await fetch(`${h.server.url}/api/status`);
    const after = await scrape();
    const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);

    const route = '/v1/chat/completions';
    expect(delta(key('modelgate_relay_requests_total', { route, model: 'gpt-4o-mini', channel, outcome: 'success' }))).toBe(2);
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(2);
    const sum = (f: (l: (typeof logs)[number]) => number) => logs.reduce((a, l) => a + f(l), 0);
    expect(delta(key('modelgate_relay_quota_charged_total', { model: 'gpt-4o-mini' }))).toBe(sum((l) => Number(l.quota)));
    expect(delta(key('modelgate_relay_tokens_total', { model: 'gpt-4o-mini', kind: 'prompt' }))).toBe(sum((l) => Number(l.prompt_tokens)));
    expect(delta(key('modelgate_relay_tokens_total', { model: 'gpt-4o-mini', kind: 'completion' }))).toBe(sum((l) => Number(l.completion_tokens)));
    expect(delta(key('modelgate_relay_refused_total', { route, status: 404 }))).toBe(1);
    expect([...after.keys()].some((k) => k.includes('no-such-model-xyz'))).toBe(false);
    expect(delta(key('modelgate_upstream_latency_seconds_count', { channel }))).toBe(2);
    expect(delta(key('modelgate_relay_first_byte_seconds_count', { channel }))).toBe(1);
    expect(after.get('modelgate_relay_open_streams')).toBe(0);
    expect(after.get('modelgate_ledger_reservations_open')).toBe(0);
    expect(after.get('modelgate_database_outage')).toBe(0);
    expect(after.get('modelgate_ledger_spooled_entries')).toBe(0);
    expect(delta(key('modelgate_http_requests_total', { method: 'GET', route: '/api/status', status: 200 }))).toBe(1);
    expect(after.get('modelgate_process_resident_memory_bytes')).toBeGreaterThan(0);
  });

  it('counts failed attempts, retries, final errors and auto-disabled channels', async () => {
    await h.server.ctx.options.set('RetryTimes', '1');
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'true');
    const bad = await addChannel(h.root, { base_url: h.fake.url, models: 'm-metrics-fail', key: 'sk-bad', priority: 10 });
    const c = await addCaller(h);
    h.fake.setFault({ status: 401 });
    const before = await scrape();
    await expect(c.client.chat.completions.create({ model: 'm-metrics-fail', messages: [{ role: 'user', content: 'x' }] })).rejects.toThrow();
    h.fake.setFault(null);
    const after = await scrape();
    const delta = (k: string) => (after.get(k) ?? 0) - (before.get(k) ?? 0);
    expect(delta(key('modelgate_upstream_errors_total', { channel: bad, status: 401 }))).toBe(1);
    expect(delta(key('modelgate_channel_auto_disabled_total', { channel: bad }))).toBe(1);
    expect(delta(key('modelgate_relay_requests_total', { route: '/v1/chat/completions', model: 'm-metrics-fail', channel: bad, outcome: 'error' }))).toBe(1);
    await h.server.ctx.options.set('RetryTimes', '0');
    await h.server.ctx.options.set('AutomaticDisableChannelEnabled', 'false');
  });
});
