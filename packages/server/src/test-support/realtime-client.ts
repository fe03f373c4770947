import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { expect } from 'vitest';
import { WebSocket } from 'ws';
import { reconcile } from '../ledger/reconcile.js';
import { RELEASED, SETTLED } from '../ledger/statements.js';
import { expectedCharge } from './expected-charge.js';
import type { RelayHarness, TestCaller } from './relay-fixtures.js';

/** Helpers of the `/v1/realtime` tests (relay/relay.realtime.test.ts, relay/realtime/*.test.ts). */
export const REALTIME_MODEL = 'gpt-4o-realtime-preview';

export type RealtimeEvent = Record<string, unknown> & { type: string };

/** A `ws` client with an ordered inbox: `next(type)` waits for the next event of that type. */
export class RealtimeClient {
  readonly events: RealtimeEvent[] = [];
  private read = 0;
  private waiters: Array<() => void> = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data) => {
      this.events.push(JSON.parse(String(data)) as RealtimeEvent);
      for (const w of this.waiters.splice(0)) w();
    });
    this.closed = once(ws, 'close').then(([code, reason]) => ({ code: code as number, reason: String(reason) }));
    // A refused upgrade rejects it with the socket's error; only a test that awaits it cares.
    this.closed.catch(() => undefined);
  }

  async next(type: string): Promise<RealtimeEvent> {
    for (;;) {
      const i = this.events.findIndex((e, idx) => idx >= this.read && e.type === type);
      if (i >= 0) {
        this.read = i + 1;
        return this.events[i]!;
      }
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  send(event: Record<string, unknown>): void {
    this.ws.send(JSON.stringify(event));
  }
}

/** Opens a session, or answers the HTTP status its upgrade was refused with. */
export async function openOrRefused(h: RelayHarness, c: Pick<TestCaller, 'key'>, model = REALTIME_MODEL): Promise<RealtimeClient | number> {
  const ws = new WebSocket(realtimeUrl(h, model), { headers: { authorization: `Bearer sk-${c.key}` } });
  ws.on('error', () => undefined);
  const client = new RealtimeClient(ws);
  const refused = once(ws, 'unexpected-response').then(([, res]) => (res as IncomingMessage).statusCode ?? 0);
  const outcome = await Promise.race([once(ws, 'open').then(() => client), refused]);
  if (typeof outcome === 'number') ws.terminate();
  return outcome;
}

export function realtimeUrl(h: RelayHarness, model = REALTIME_MODEL): string {
  return `${h.server.url.replace(/^http/, 'ws')}/v1/realtime?model=${encodeURIComponent(model)}`;
}

export async function connectRealtime(h: RelayHarness, c: Pick<TestCaller, 'key'>, model = REALTIME_MODEL): Promise<RealtimeClient> {
  const ws = new WebSocket(realtimeUrl(h, model), { headers: { authorization: `Bearer sk-${c.key}` } });
  const client = new RealtimeClient(ws);
  await once(ws, 'open');
  return client;
}

/** The HTTP answer to an upgrade that was refused. */
export async function refusedUpgrade(
  h: RelayHarness,
  headers: Record<string, string>,
  model = REALTIME_MODEL,
): Promise<{ status: number; headers: IncomingMessage['headers']; body: { error: Record<string, unknown> } }> {
  const ws = new WebSocket(realtimeUrl(h, model), { headers });
  ws.on('error', () => undefined);
  const [, res] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
  const chunks: Buffer[] = [];
  for await (const c of res) chunks.push(c as Buffer);
  ws.terminate();
  return { status: res.statusCode ?? 0, headers: res.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as { error: Record<string, unknown> } };
}

/**
 * Waits until every hold of the sessions was settled or released (the release runs after the
 * sockets closed). `outcomes`: how many ledger outcomes the user's sessions end with (a response
 * settled, or the hold of the next one released): a session that just billed a response takes the
 * next hold right after, so "no open hold" alone can be seen between the two.
 */
export async function settledLedger(h: RelayHarness, outcomes?: { userId: number; count: number }): Promise<void> {
  if (outcomes) {
    const rows = async () => (await h.server.ctx.db.db.selectFrom('ledger_requests').select('request_id').where('user_id', '=', outcomes.userId).execute()).length;
    for (let i = 0; i < 150 && (await rows()) < outcomes.count; i++) await new Promise((r) => setTimeout(r, 20));
    expect(await rows()).toBe(outcomes.count);
  }
  const open = async () => (await h.server.ctx.db.db.selectFrom('reservations').select('request_id').execute()).length;
  for (let i = 0; i < 150 && (await open()) > 0; i++) await new Promise((r) => setTimeout(r, 20));
  expect(await open()).toBe(0);
  expect(h.server.ctx.relay.ledger.openCount).toBe(0);
}

/**
 * The ledger outcome of every response of a user's sessions (`<n>` of `<request id>-<n>`), in
 * order, once the ledger reconciles: each response id has exactly one.
 */
export async function ledgerOutcomes(h: RelayHarness, userId: number): Promise<Array<[number, 'settled' | 'released', number]>> {
  const rows = await h.server.ctx.db.db.selectFrom('ledger_requests').select(['request_id', 'state', 'charge']).where('user_id', '=', userId).execute();
  const r = await reconcile(h.server.ctx.db.db);
  expect(r.mismatches).toEqual([]);
  expect(r.ok).toBe(true);
  return rows
    .map((row): [number, 'settled' | 'released', number] => {
      const state = Number(row.state);
      expect([SETTLED, RELEASED]).toContain(state);
      return [Number(row.request_id.slice(row.request_id.lastIndexOf('-') + 1)), state === SETTLED ? 'settled' : 'released', Number(row.charge)];
    })
    .sort((a, b) => a[0] - b[0]);
}

export interface RtUsage {
  input_tokens: number;
  output_tokens: number;
  input_token_details: { cached_tokens: number; audio_tokens: number };
  output_token_details: { audio_tokens: number };
}

/**
 * The quota of a realtime response's usage: gpt-4o-realtime-preview at its shipped prices (ModelRatio
 * 2.5, completion ratio 4, cache ratio 0.5, audio ratio 20, audio completion ratio 2), group ratio 1.
 */
export function expectedRealtimeQuota(u: RtUsage): number {
  return expectedCharge(
    { model: REALTIME_MODEL },
    {
      prompt: u.input_tokens,
      completion: u.output_tokens,
      cached: u.input_token_details.cached_tokens,
      audioIn: u.input_token_details.audio_tokens,
      audioOut: u.output_token_details.audio_tokens,
    },
  );
}

export async function textTurn(client: RealtimeClient, text: string): Promise<RtUsage> {
  client.send({ type: 'conversation.item.create', item: { type: 'message', role: 'user', content: [{ type: 'input_text', text }] } });
  await client.next('conversation.item.created');
  client.send({ type: 'response.create', response: { modalities: ['text'] } });
  await client.next('response.created');
  const done = await client.next('response.done');
  return (done.response as { usage: RtUsage }).usage;
}

/** Polls `check` every 20 ms for up to 3 s (state another process or socket changes). */
export async function eventually(check: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 150 && !(await check()); i++) await new Promise((r) => setTimeout(r, 20));
  expect(await check()).toBe(true);
}
