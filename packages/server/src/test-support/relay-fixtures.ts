import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import { TokenStatus } from '@modelgate/shared';
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '@modelgate/testkit';
import OpenAI from 'openai';
import { expect } from 'vitest';
import type { SqlKind } from '../config/config.js';
import type { Logger } from '../log/logger.js';
import { randomAlnum } from '../modules/users/password.js';
import { rootClient, type ApiClient } from './api-client.js';
import { startTestServer, type TestServer } from './test-server.js';

/** A ModelGate server, a fake OpenAI upstream and a root console client. */
export interface RelayHarness {
  server: TestServer;
  fake: FakeOpenAI;
  root: ApiClient;
  close(): Promise<void>;
}

export async function startRelayHarness(
  opts: { kind?: SqlKind; env?: Record<string, string>; fake?: FakeOpenAIOptions; log?: Logger; databaseEnv?: (env: Record<string, string>) => Record<string, string> } = {},
): Promise<RelayHarness> {
  const server = await startTestServer({ kind: opts.kind, env: opts.env, log: opts.log, databaseEnv: opts.databaseEnv });
  const fake = await startFakeOpenAI(opts.fake);
  const root = await rootClient(server.url);
  return {
    server,
    fake,
    root,
    async close() {
      await fake.close();
      await server.close();
    },
  };
}

/**
 * Gives a test's made-up model names a ratio on top of the current table: the relay refuses a
 * model with no price (relay.service.ts `assertPriced`).
 */
export async function priceModels(h: Pick<RelayHarness, 'server'>, models: readonly string[], ratio = 1): Promise<void> {
  const table = h.server.ctx.options.json<Record<string, number>>('ModelRatio', {});
  for (const m of models) table[m] = ratio;
  await h.server.ctx.options.set('ModelRatio', JSON.stringify(table));
}

/** Creates a channel through the console API and returns its id. */
export async function addChannel(root: ApiClient, fields: Record<string, unknown>): Promise<number> {
  const name = (fields.name as string | undefined) ?? `ch-${randomAlnum(8)}`;
  const body = { type: 1, key: 'sk-upstream', models: 'gpt-4o-mini', group: 'default', ...fields, name };
  const res = await root.post('/api/channel/', body);
  if (!res.body.success) throw new Error(`channel create failed: ${res.body.message}`);
  const found = await root.get(`/api/channel/search?keyword=${encodeURIComponent(name)}`);
  const ch = (found.body.data as Array<{ id: number; name: string }>).find((c) => c.name === name);
  if (!ch) throw new Error('created channel not found');
  return ch.id;
}

export interface TestCaller {
  userId: number;
  tokenId: number;
  key: string;
  client: OpenAI;
}

/** A user with `quota` and one token (limited to `remain` unless unlimited), plus an SDK client. */
export async function addCaller(
  h: RelayHarness,
  opts: { quota?: number; remain?: number; unlimited?: boolean; role?: number; group?: string; token?: Record<string, unknown>; maxRetries?: number } = {},
): Promise<TestCaller> {
  const ctx = h.server.ctx;
  const username = `u${randomAlnum(8).toLowerCase()}`;
  const userId = await ctx.users.insert({ username, password: 'x', quota: 0, role: opts.role ?? 1, group: opts.group ?? 'default', aff_code: randomAlnum(8) });
  // Balances are funded through the ledger, so every test server reconciles when it closes.
  const quota = opts.quota ?? 1_000_000;
  if (quota) await ctx.quotaLedger.move({ kind: 'test', userId, quota });
  const key = randomAlnum(48);
  const { remain_quota: remainOverride, ...tokenFields } = (opts.token ?? {}) as { remain_quota?: number } & Record<string, unknown>;
  const tokenId = await ctx.tokens.insert({
    user_id: userId,
    key,
    name: 'test-token',
    status: TokenStatus.Enabled,
    remain_quota: 0,
    unlimited_quota: opts.unlimited ? 1 : 0,
    expired_time: -1,
    ...tokenFields,
  });
  const remain = remainOverride ?? opts.remain ?? 1_000_000;
  if (remain) await ctx.quotaLedger.setTokenRemain(tokenId, remain);
  const client = new OpenAI({ apiKey: `sk-${key}`, baseURL: `${h.server.url}/v1`, maxRetries: opts.maxRetries ?? 0 });
  return { userId, tokenId, key, client };
}

export async function balances(h: RelayHarness, c: Pick<TestCaller, 'userId' | 'tokenId'>) {
  const db = h.server.ctx.db.db;
  const u = await db.selectFrom('users').select(['quota', 'used_quota', 'request_count']).where('id', '=', c.userId).executeTakeFirstOrThrow();
  const t = await db.selectFrom('tokens').select(['remain_quota', 'used_quota']).where('id', '=', c.tokenId).executeTakeFirstOrThrow();
  return { quota: Number(u.quota), userUsed: Number(u.used_quota), requests: Number(u.request_count), remain: Number(t.remain_quota), tokenUsed: Number(t.used_quota) };
}

/**
 * Since `before` (balances()), the caller was charged exactly its `answers` consume logs: as many
 * logs as answers delivered, and the user's and the token's balances down by their sum. Answers the sum.
 */
export async function expectChargedFor(h: RelayHarness, c: TestCaller, before: Awaited<ReturnType<typeof balances>>, answers: number): Promise<number> {
  const logs = await consumeLogs(h, c.userId);
  if (logs.length !== answers) throw new Error(`expected ${answers} consume logs, found ${logs.length}`);
  const charged = logs.reduce((sum, l) => sum + Number(l.quota), 0);
  const after = await balances(h, c);
  if (before.quota - after.quota !== charged || before.remain - after.remain !== charged) {
    throw new Error(`charged ${charged} by the logs, but the user lost ${before.quota - after.quota} and the token ${before.remain - after.remain}`);
  }
  return charged;
}

/** What `fn` cost the caller: the user's quota drop, checked equal to the token's. */
export async function spentBy(h: RelayHarness, c: TestCaller, fn: () => Promise<unknown>): Promise<number> {
  const before = await balances(h, c);
  await fn();
  const after = await balances(h, c);
  expect(before.remain - after.remain).toBe(before.quota - after.quota);
  return before.quota - after.quota;
}

export async function consumeLogs(h: RelayHarness, userId: number) {
  return h.server.ctx.logDb.db.selectFrom('logs').selectAll().where('user_id', '=', userId).where('type', '=', 2).orderBy('id').execute();
}

/** The official Anthropic SDK pointed at ModelGate's `/v1/messages`, with the caller's token (sent as `x-api-key`). */
export function anthropicClient(h: Pick<RelayHarness, 'server'>, c: Pick<TestCaller, 'key'>, opts: { maxRetries?: number } = {}): Anthropic {
  return new Anthropic({ apiKey: `sk-${c.key}`, baseURL: h.server.url, maxRetries: opts.maxRetries ?? 0 });
}

/** The official Google Gen AI SDK pointed at ModelGate's `/v1beta`, with the caller's token (sent as `x-goog-api-key`). */
export function genaiClient(h: Pick<RelayHarness, 'server'>, c: Pick<TestCaller, 'key'>): GoogleGenAI {
  return new GoogleGenAI({ apiKey: `sk-${c.key}`, httpOptions: { baseUrl: h.server.url, retryOptions: { attempts: 1 } } });
}
