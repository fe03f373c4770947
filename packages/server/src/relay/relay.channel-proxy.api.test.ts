import { createServer, type Server } from 'node:http';
import net, { type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/** An HTTP forward proxy on loopback that tunnels CONNECT and records who asked for what. */
async function startTunnelProxy() {
  const connects: Array<{ target: string; auth: string | undefined }> = [];
  const server: Server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, socket, head) => {
    connects.push({ target: req.url ?? '', auth: req.headers['proxy-authorization'] });
    const [host, port] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), host, () => {
      socket.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      up.pipe(socket);
      socket.pipe(up);
    });
    up.on('error', () => socket.destroy());
    socket.on('error', () => up.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, connects, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('a channel\'s own proxy (setting.proxy)', () => {
  let h: RelayHarness;
  let proxy: Awaited<ReturnType<typeof startTunnelProxy>>;
  const messages = [{ role: 'user' as const, content: 'Hello through the proxy' }];

  beforeAll(async () => {
    h = await startRelayHarness();
    proxy = await startTunnelProxy();
  });
  afterAll(async () => {
    await h?.close();
    await proxy?.close();
  });

  it('relays through an http proxy, with the credentials of its URL, and bills exactly', async () => {
    const fakePort = new URL(h.fake.url).port;
    const withAuth = proxy.url.replace('http://', 'http://relay-user:s3cret@');
    await addChannel(h.root, { base_url: h.fake.url, models: 'proxied-model', setting: JSON.stringify({ proxy: withAuth }) });
    await h.root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'proxied-model': 1 }) });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const seen = h.fake.requests.length;
    const res = await c.client.chat.completions.create({ model: 'proxied-model', messages });
    expect(res.choices[0]!.message.content).toBeTruthy();
    expect(h.fake.requests.length).toBe(seen + 1);
    expect(proxy.connects.at(-1)).toEqual({ target: `127.0.0.1:${fakePort}`, auth: `Basic ${Buffer.from('relay-user:s3cret').toString('base64')}` });
    const cost = expectedCharge({ modelRatio: 1 }, { prompt: res.usage!.prompt_tokens, completion: res.usage!.completion_tokens });
    const after = await balances(h, c);
    expect(before.quota - after.quota).toBe(cost);
    expect(after.tokenUsed - before.tokenUsed).toBe(cost);
    expect((await consumeLogs(h, c.userId))[0]).toMatchObject({ model_name: 'proxied-model', quota: cost, prompt_tokens: res.usage!.prompt_tokens, completion_tokens: res.usage!.completion_tokens });
  });

  it('a socks5 proxy (saved, as the reference allows) fails the request with its reason for root instead of bypassing the proxy; nothing is charged', async () => {
    const id = await addChannel(h.root, { base_url: h.fake.url, models: 'socks-model', setting: JSON.stringify({ proxy: 'socks5://127.0.0.1:1080' }) });
    await h.root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'socks-model': 1 }) });
    const c = await addCaller(h);
    const before = await balances(h, c);
    const seen = h.fake.requests.length;
    const err = (await c.client.chat.completions.create({ model: 'socks-model', messages }).catch((e: unknown) => e)) as { status: number };
    expect(err.status).toBe(500);
    expect(h.fake.requests.length).toBe(seen);
    expect(await balances(h, c)).toEqual(before);
    const tested = await h.root.get(`/api/channel/test/${id}`);
    expect(tested.body.success).toBe(false);
    expect(tested.body.message).toContain('socks5 proxy is not supported by the relay');
  });
});
