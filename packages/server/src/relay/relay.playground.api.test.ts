import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newUser, type ApiClient } from '../test-support/api-client.js';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addChannel, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

const messages = [{ role: 'user', content: 'Hello there friend' }];
const GROUP_RATIO = { default: 1, vip: 2, svip: 1 };
// The fake answers 5 words to a 3-word prompt; gpt-4 costs 15 per token, completion × 2.
const gpt4Cost = (group: string, prompt = 3, completion = 5) => expectedCharge({ model: 'gpt-4', group, tables: { groupRatio: GROUP_RATIO } }, { prompt, completion });

describe.each(testDbKinds())('playground /pg/chat/completions on %s', (kind) => {
  let h: RelayHarness;
  let n = 0;

  beforeAll(async () => {
    h = await startRelayHarness({ kind, fake: { chunkCount: 5 } });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4', group: 'default,vip' });
    expect((await h.root.put('/api/option/', { key: 'GroupRatio', value: JSON.stringify(GROUP_RATIO) })).body.success).toBe(true);
  });
  afterAll(() => h.close());

  /** A signed-in console user funded with `quota` through the ledger. */
  async function player(quota = 1_000_000): Promise<ApiClient> {
    n += 1;
    const c = await newUser(h.server.url, `pg${kind.slice(0, 2)}${n}`);
    if (quota) await h.server.ctx.quotaLedger.move({ kind: 'test', userId: c.userId!, quota });
    return c;
  }

  async function quotaOf(c: ApiClient): Promise<number> {
    const u = await h.server.ctx.db.db.selectFrom('users').select('quota').where('id', '=', c.userId!).executeTakeFirstOrThrow();
    return Number(u.quota);
  }

  function post(c: ApiClient | null, body: unknown, init: RequestInit = {}): Promise<Response> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'accept-language': 'en' };
    if (c) Object.assign(headers, { cookie: c.cookie, 'new-api-user': String(c.userId) });
    return fetch(`${h.server.url}/pg/chat/completions`, { method: 'POST', headers, body: JSON.stringify(body), ...init });
  }

  async function tokenRows(c: ApiClient): Promise<number> {
    return (await h.server.ctx.db.db.selectFrom('tokens').select('id').where('user_id', '=', c.userId!).execute()).length;
  }

  it('answers a non-stream call and charges the user exactly, logged under the playground', async () => {
    const c = await player();
    const res = await post(c, { model: 'gpt-4', messages });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { choices: Array<{ message: { content: string } }>; usage: { total_tokens: number } };
    expect(body.choices[0]!.message.content).toBe('Hello from the fake OpenAI');
    expect(await quotaOf(c)).toBe(1_000_000 - gpt4Cost('default'));
    const [log] = await consumeLogs(h, c.userId!);
    expect(log).toMatchObject({ token_name: 'playground-default', token_id: 0, model_name: 'gpt-4', group: 'default', is_stream: 0, prompt_tokens: 3, completion_tokens: 5 });
    expect(Number(log!.quota)).toBe(gpt4Cost('default'));
    // No token is involved: none is created, read or debited.
    expect(await tokenRows(c)).toBe(0);
    // The playground's own field is not sent upstream.
    expect(h.fake.requests.at(-1)!.body).not.toHaveProperty('group');
  });

  it('streams in a chosen usable group, priced with that group, and ends with [DONE]', async () => {
    const c = await player();
    const res = await post(c, { model: 'gpt-4', messages, stream: true, group: 'vip' });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":"Hello"');
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(await quotaOf(c)).toBe(1_000_000 - gpt4Cost('vip'));
    const [log] = await consumeLogs(h, c.userId!);
    expect(log).toMatchObject({ token_name: 'playground-vip', token_id: 0, group: 'vip', is_stream: 1, prompt_tokens: 3, completion_tokens: 5 });
    expect(Number(log!.quota)).toBe(gpt4Cost('vip'));
  });

  it('refuses a group the user may not use, charging nothing', async () => {
    const c = await player();
    const res = await post(c, { model: 'gpt-4', messages, group: 'svip' });
    expect(res.status).toBe(403);
    expect(await res.json()).toMatchObject({ error: { code: 'group_not_allowed', message: 'You may not use this group: svip' } });
    expect(await quotaOf(c)).toBe(1_000_000);
    expect(await consumeLogs(h, c.userId!)).toHaveLength(0);
  });

  it('answers 401 in the API envelope without a session, and refuses access tokens', async () => {
    const anon = await post(null, { model: 'gpt-4', messages });
    expect(anon.status).toBe(401);
    expect(await anon.json()).toEqual({ success: false, message: 'No permission for this operation: not logged in and no access token provided' });

    const c = await player();
    const wrongUser = await fetch(`${h.server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie: c.cookie, 'new-api-user': String(c.userId! + 1000) },
      body: JSON.stringify({ model: 'gpt-4', messages }),
    });
    expect(wrongUser.status).toBe(401);
    expect(await wrongUser.json()).toMatchObject({ success: false });

    const access = (await c.get('/api/user/token')).body.data as string;
    const viaToken = await fetch(`${h.server.url}/pg/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: access, 'accept-language': 'en' },
      body: JSON.stringify({ model: 'gpt-4', messages }),
    });
    expect(viaToken.status).toBe(401);
    expect(await viaToken.json()).toEqual({ success: false, message: 'The playground needs a signed-in session; access tokens are not accepted' });
    expect(await quotaOf(c)).toBe(1_000_000);
  });

  it('refuses a user with no balance with a clear message', async () => {
    const c = await player(0);
    const res = await post(c, { model: 'gpt-4', messages, stream: true });
    expect(res.status).toBe(403);
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(body.error.code).toBe('insufficient_user_quota');
    expect(body.error.message).toMatch(/^Insufficient user quota/);
    expect(await quotaOf(c)).toBe(0);
  });

  it('a stream stopped by the browser is charged for what was delivered (docs/relay-billing.md)', async () => {
    const c = await player();
    h.fake.setFault({ chunkDelayMs: 60, times: 1 });
    const controller = new AbortController();
    const res = await post(c, { model: 'gpt-4', messages, stream: true }, { signal: controller.signal });
    const reader = res.body!.getReader();
    let got = '';
    while (!got.includes('"content":" from"')) {
      const { value, done } = await reader.read();
      if (done) break;
      got += new TextDecoder().decode(value);
    }
    controller.abort();
    let log: Awaited<ReturnType<typeof consumeLogs>>[number] | undefined;
    for (let i = 0; i < 100 && !log; i++) {
      [log] = await consumeLogs(h, c.userId!);
      if (!log) await new Promise((r) => setTimeout(r, 20));
    }
    expect(log).toMatchObject({ token_name: 'playground-default', token_id: 0, is_stream: 1 });
    const completion = Number(log!.completion_tokens);
    expect(completion).toBeGreaterThan(0);
    expect(completion).toBeLessThan(5);
    expect(Number(log!.quota)).toBe(gpt4Cost('default', Number(log!.prompt_tokens), completion));
    expect(await quotaOf(c)).toBe(1_000_000 - Number(log!.quota));
    expect(await h.server.ctx.db.db.selectFrom('reservations').selectAll().execute()).toHaveLength(0);
  });
});
