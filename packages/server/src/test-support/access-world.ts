import { Role } from '@modelgate/shared';
import type { Logger } from '../log/logger.js';
import { hashPassword, randomAlnum } from '../modules/users/password.js';
import { ApiClient, newUser, rootClient } from './api-client.js';
import { addChannel, startRelayHarness, type RelayHarness } from './relay-fixtures.js';

/**
 * A server with one of each kind of caller and objects owned by a second user, for the access
 * matrix and the IDOR checks (issue 22 item 2): user A (the "user" caller, whose API key is the
 * "token" caller), user B (the owner of every object the tests aim at), an admin, a second admin
 * and root.
 */
export type Caller = 'anonymous' | 'user' | 'admin' | 'root' | 'token';
export const CALLERS: readonly Caller[] = ['anonymous', 'token', 'user', 'admin', 'root'];

export interface Owned {
  userId: number;
  tokenId: number;
  /** Without `sk-`. */
  tokenKey: string;
  logId: number;
  mjId: string;
  mjRowId: number;
  taskId: string;
  taskRowId: number;
  tradeNo: string;
}

export interface AccessWorld {
  h: RelayHarness;
  clients: Record<Caller, ApiClient>;
  a: Owned;
  b: Owned;
  /** The "user" caller's password (some routes ask for it). */
  password: string;
  /** A second admin: admins must not act on one another. */
  admin2: ApiClient;
  channelId: number;
  redemptionId: number;
  close(): Promise<void>;
}

const PASSWORD = 'password123';

async function promote(root: ApiClient, c: ApiClient, username: string): Promise<void> {
  const r = await root.post('/api/user/manage', { id: c.userId, action: 'promote' });
  if (r.body.data?.role !== Role.Admin) throw new Error(`promote ${username}: ${r.body.message}`);
  // A role change ends the user's sessions: the new admin signs in again.
  await c.login(username, PASSWORD);
}

/** Funds the user and gives it an unlimited API key. */
async function fundedKey(h: RelayHarness, c: ApiClient, name: string): Promise<{ tokenId: number; tokenKey: string }> {
  await h.server.ctx.quotaLedger.move({ kind: 'test', userId: c.userId!, quota: 50_000_000 });
  const created = await c.post('/api/token/', { name: `${name}-key`, unlimited_quota: true });
  if (!created.body.success) throw new Error(`token for ${name}: ${created.body.message}`);
  const tokens = (await c.get('/api/token/?p=0&size=10')).body.data as Array<{ id: number; key: string }>;
  return { tokenId: tokens[0]!.id, tokenKey: tokens[0]!.key };
}

/** A user with a funded API key, one relayed request (a log), a drawing, a task and a top-up order. */
async function ownedBy(h: RelayHarness, c: ApiClient, name: string): Promise<Owned> {
  const ctx = h.server.ctx;
  const userId = c.userId!;
  const { tokenId, tokenKey } = await fundedKey(h, c, name);
  const chat = await fetch(`${h.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${tokenKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `hello from ${name}` }] }),
  });
  if (chat.status !== 200) throw new Error(`relay for ${name}: ${chat.status} ${await chat.text()}`);
  const log = await ctx.logDb.db.selectFrom('logs').select('id').where('user_id', '=', userId).orderBy('id', 'desc').executeTakeFirstOrThrow();
  const now = Math.floor(Date.now() / 1000);
  const mjId = `mj-${name}-${now}`;
  const mj = await ctx.db.db
    .insertInto('midjourneys')
    .values({ user_id: userId, action: 'IMAGINE', mj_id: mjId, prompt: `${name} secret prompt`, status: 'SUCCESS', progress: '100%', submit_time: now * 1000, channel_id: 0, quota: 0 })
    .returning('id')
    .executeTakeFirstOrThrow();
  const taskId = `task-${name}-${now}`;
  const task = await ctx.db.db
    .insertInto('tasks')
    .values({ task_id: taskId, platform: 'suno', user_id: userId, action: 'MUSIC', status: 'SUCCESS', progress: '100%', submit_time: now, created_at: now, updated_at: now, quota: 0, data: '{}' })
    .returning('id')
    .executeTakeFirstOrThrow();
  const tradeNo = `trade-${name}-${now}`;
  await ctx.db.db.insertInto('top_ups').values({ user_id: userId, amount: 10, money: 73, trade_no: tradeNo, create_time: now, status: 'pending', quota: 0, payment_method: 'zfb' }).execute();
  return { userId, tokenId, tokenKey, logId: Number(log.id), mjId, mjRowId: Number(mj.id), taskId, taskRowId: Number(task.id), tradeNo };
}

export async function startAccessWorld(env: Record<string, string> = {}, log?: Logger): Promise<AccessWorld> {
  const h = await startRelayHarness({ env, log });
  const channelId = await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini' });
  await h.server.ctx.options.set('MetricsToken', 'metrics-secret-for-tests');
  const user = await newUser(h.server.url, 'mx_user_a');
  const owner = await newUser(h.server.url, 'mx_user_b');
  const admin = await newUser(h.server.url, 'mx_admin');
  const admin2 = await newUser(h.server.url, 'mx_admin2');
  await promote(h.root, admin, 'mx_admin');
  await promote(h.root, admin2, 'mx_admin2');
  // The console callers can spend too (the playground bills the signed-in user).
  for (const c of [admin, h.root]) await h.server.ctx.quotaLedger.move({ kind: 'test', userId: c.userId!, quota: 50_000_000 });
  const a = await ownedBy(h, user, 'a');
  const b = await ownedBy(h, owner, 'b');
  const token = new ApiClient(h.server.url);
  token.accessToken = `Bearer sk-${a.tokenKey}`;
  const made = await h.root.post('/api/redemption/', { name: 'matrix', quota: 1000, count: 1 });
  if (!made.body.success) throw new Error(`redemption: ${made.body.message}`);
  const redemptions = (await h.root.get('/api/redemption/?p=1')).body.data as { items?: Array<{ id: number }> } | Array<{ id: number }>;
  const list = Array.isArray(redemptions) ? redemptions : (redemptions.items ?? []);
  return {
    h,
    clients: { anonymous: new ApiClient(h.server.url), user, admin, root: h.root, token },
    a,
    b,
    password: PASSWORD,
    admin2,
    channelId,
    redemptionId: list[0]!.id,
    close: () => h.close(),
  };
}

/**
 * After calls that may end a caller (a fuzzed logout, self-deletion, a ban, a renamed root), gives
 * each caller kind a working identity again: the same one when it still works, else a new one.
 */
export async function reviveCallers(w: AccessWorld): Promise<void> {
  const ctx = w.h.server.ctx;
  const url = w.h.server.url;
  const alive = async (c: ApiClient) => (await c.get('/api/user/self')).body.success === true;
  if (!(await alive(w.clients.root))) {
    // Root may have been renamed or given a new password: put the known sign-in back.
    await ctx.db.db.updateTable('users').set({ username: 'root', password: await hashPassword('123456'), status: 1 }).where('id', '=', 1).execute();
    const root = await rootClient(url);
    w.clients.root.cookie = root.cookie;
    w.clients.root.userId = root.userId;
  }
  const tokenOk = (await fetch(`${url}/v1/models`, { headers: { authorization: w.clients.token.accessToken } })).status === 200;
  if (!(await alive(w.clients.user)) || !tokenOk) {
    const name = `r${randomAlnum(8).toLowerCase()}`;
    const user = await newUser(url, name, PASSWORD);
    const { tokenKey } = await fundedKey(w.h, user, name);
    w.clients.user = user;
    w.clients.token.accessToken = `Bearer sk-${tokenKey}`;
  }
  if (!(await alive(w.clients.admin))) {
    const name = `r${randomAlnum(8).toLowerCase()}`;
    const admin = await newUser(url, name, PASSWORD);
    await promote(w.clients.root, admin, name);
    w.clients.admin = admin;
  }
}
