import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcile } from '../ledger/reconcile.js';
import { addCaller, addChannel, balances, consumeLogs, priceModels, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

const messages = [{ role: 'user' as const, content: 'Tell me a long story about the sea' }];

/**
 * An OpenAI-compatible upstream that ignores max_tokens and sends no usage (some vendors do):
 * only the gateway's own stream metering can stop it.
 */
async function startRunawayUpstream(words: number): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      let i = 0;
      const tick = () => {
        while (i < words) {
          i += 1;
          const chunk = { id: 'chatcmpl-runaway', object: 'chat.completion.chunk', created: 1, model: 'gpt-4', choices: [{ index: 0, delta: { content: ' word' }, finish_reason: null }] };
          if (!res.write(`data: ${JSON.stringify(chunk)}\n\n`)) return void res.once('drain', tick);
        }
        res.end('data: [DONE]\n\n');
      };
      res.on('close', () => (i = words));
      tick();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => new Promise((r) => server.close(() => r())) };
}

describe.each(testDbKinds())('spend limits on %s', (kind) => {
  let h: RelayHarness;
  let runaway: Awaited<ReturnType<typeof startRunawayUpstream>>;

  beforeAll(async () => {
    h = await startRelayHarness({ kind, fake: { chunkCount: 2000 } });
    runaway = await startRunawayUpstream(5000);
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4,gpt-4o' });
    await priceModels(h, ['gpt-4-runaway'], 15);
    await addChannel(h.root, { base_url: runaway.url, models: 'gpt-4-runaway', model_mapping: '' });
  });
  afterAll(async () => {
    await runaway.close();
    await h.close();
  });

  it('100 concurrent long streams without max_tokens never take the user or the token past their limit', async () => {
    const c = await addCaller(h, { quota: 15_050, remain: 15_050 });
    const results = await Promise.allSettled(
      Array.from({ length: 100 }, async () => {
        const s = await c.client.chat.completions.create({ model: 'gpt-4', messages, stream: true });
        for await (const _chunk of s) void _chunk;
      }),
    );
    const ok = results.filter((r) => r.status === 'fulfilled').length;
    for (const r of results) if (r.status === "rejected") expect([400, 401, 403], String(r.reason)).toContain((r.reason as { status: number }).status);
    expect(ok).toBeGreaterThan(0);
    const after = await balances(h, c);
    const logs = await consumeLogs(h, c.userId);
    const logged = logs.reduce((s, l) => s + Number(l.quota), 0);
    // Exact: what the user lost is what was logged, and the same on the token.
    expect(logs).toHaveLength(ok);
    expect(15_050 - after.quota).toBe(logged);
    expect(after.userUsed).toBe(logged);
    expect(15_050 - after.remain).toBe(logged);
    expect(after.tokenUsed).toBe(logged);
    expect(after.quota).toBeGreaterThanOrEqual(0);
    expect(after.remain).toBeGreaterThanOrEqual(0);
    expect(logs.every((l) => !JSON.parse(l.other).shortfall)).toBe(true);
    expect((await reconcile(h.server.ctx.db.db)).ok).toBe(true);
  });

  it('a small remainder still serves a call, clamped (max_tokens sent upstream); nothing left says what the call needs', async () => {
    const c = await addCaller(h, { quota: 100_000_000, remain: 660 });
    const r = await c.client.chat.completions.create({ model: 'gpt-4o', messages });
    expect(r.choices[0]!.finish_reason).toBe('length');
    const sent = h.fake.requests.at(-1)!.body as { max_tokens?: number };
    expect(sent.max_tokens).toBeGreaterThan(0);
    const after = await balances(h, c);
    expect(after.remain).toBeGreaterThanOrEqual(0);
    expect(660 - after.remain).toBe(Number((await consumeLogs(h, c.userId))[0]!.quota));
    await c.client.chat.completions.create({ model: 'gpt-4o', messages }).catch(() => undefined);
    const drained = await addCaller(h, { quota: 100_000_000, remain: 0 });
    const err = (await drained.client.chat.completions.create({ model: 'gpt-4o', messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(err.status).toBe(401);
    expect(err.message).toMatch(/need quota: \d+/);
    const poor = await addCaller(h, { quota: 0 });
    const userErr = (await poor.client.chat.completions.create({ model: 'gpt-4o', messages }).catch((e: unknown) => e)) as { status: number; message: string };
    expect(userErr.status).toBe(403);
    expect(userErr.message).toMatch(/user quota: 0, need quota: \d+/);
  });

  it('a stream from an upstream that ignores max_tokens is cut with a final error event before it overspends', async () => {
    const c = await addCaller(h, { quota: 3000, remain: 100_000_000 });
    const res = await fetch(`${h.server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4-runaway', messages, stream: true }),
    });
    expect(res.status).toBe(200);
    const text = await res.text();
    const events = text.split('\n\n').filter(Boolean);
    const last = JSON.parse(events.at(-1)!.slice(6)) as { error?: { code: string } };
    expect(last.error?.code).toBe('insufficient_quota');
    expect(text).not.toContain('[DONE]');
    const after = await balances(h, c);
    const logs = await consumeLogs(h, c.userId);
    expect(logs).toHaveLength(1);
    expect(3000 - after.quota).toBe(Number(logs[0]!.quota));
    expect(after.quota).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(logs[0]!.other).shortfall).toBeUndefined();
  });
});
