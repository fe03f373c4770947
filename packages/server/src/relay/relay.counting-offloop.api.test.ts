import { countTokens } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { randomWords, until } from '../test-support/text.js';
import { estimateTokens } from './billing/token-bounded.js';

/**
 * Issue 10: a big prompt was tokenised on the event loop (1 MB ≈ 6.6 s, 11 MB ≈ 70 s), and every
 * other request — even `GET /api/status` — waited. The upstream here omits usage, so the server
 * must count the prompt itself; the status call is made once the upstream has the request, i.e.
 * while its reply is being counted.
 */
let h: RelayHarness;

beforeAll(async () => {
  // The test builds its 10 MB prompt on this process's event loop (the server's too): the test
  // server sheds no request for lag (test-support/test-server.ts).
  h = await startRelayHarness();
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
});
afterAll(() => h.close());

async function bigChatWhileStatus(key: string, content: string): Promise<{ order: string[]; status: number; bigStatus: number }> {
  h.fake.setFault({ omitUsage: true, times: 1 });
  const seen = h.fake.requests.length;
  const order: string[] = [];
  const big = fetch(`${h.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4', messages: [{ role: 'user', content }] }),
  }).then(async (r) => {
    await r.arrayBuffer();
    order.push('big');
    return r.status;
  });
  await until(() => h.fake.requests.length > seen);
  const status = await fetch(`${h.server.url}/api/status`);
  await status.arrayBuffer();
  order.push('status');
  const bigStatus = await big;
  h.fake.setFault(null);
  return { order, status: status.status, bigStatus };
}

describe('local token counting never blocks the event loop', () => {
  it('a 1.5 MB prompt is counted exactly in a worker while /api/status answers', async () => {
    const c = await addCaller(h, { quota: 1e12, unlimited: true });
    const content = randomWords(1_500_000);
    const expected = 3 + 3 + countTokens('user') + countTokens(content);
    const r = await bigChatWhileStatus(c.key, content);
    expect(r.status).toBe(200);
    expect(r.bigStatus).toBe(200);
    expect(r.order).toEqual(['status', 'big']);
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.prompt_tokens)).toBe(expected);
  });

  it('a 10 MB prompt is not tokenised at all: its prompt is estimated', async () => {
    const c = await addCaller(h, { quota: 1e12, unlimited: true });
    const content = randomWords(10 * 1024 * 1024, 3);
    // No ordering to assert here: the estimate is one pass over the bytes, so the big reply may
    // well finish first. Before the fix this prompt held the event loop for about a minute.
    const r = await bigChatWhileStatus(c.key, content);
    expect(r.status).toBe(200);
    expect(r.bigStatus).toBe(200);
    const [log] = await consumeLogs(h, c.userId);
    expect(Number(log!.prompt_tokens)).toBe(3 + 3 + estimateTokens(['user', content]));
  });
});
