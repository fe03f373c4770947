import { serverMessage, type Lang } from '@modelgate/shared';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { RuntimeChannel } from '../channel-cache.js';
import type { RelayError } from '../relay-error.js';
import { realtimeUsage, type RealtimeBilling } from './realtime-billing.js';
import { audioBytesPerToken, DEFAULT_AUDIO_BYTES_PER_TOKEN, ResponseTally } from './realtime-tally.js';

/** Close codes an endpoint may send (RFC 6455 §7.4): 1005, 1006 and 1015 only describe a close. */
function sendableCode(code: number, fallback: number): number {
  return (code >= 1000 && code <= 1014 && code !== 1004 && code !== 1005 && code !== 1006) || (code >= 3000 && code <= 4999) ? code : fallback;
}

/** A close reason must fit a control frame (123 bytes of UTF-8). */
function shortReason(reason: Buffer | string): string {
  const text = typeof reason === 'string' ? reason : reason.toString('utf8');
  return Buffer.byteLength(text) <= 123 ? text : Buffer.from(text).subarray(0, 120).toString('utf8');
}

/**
 * How long the upstream is still read after the client left in the middle of a response, for that
 * response's `response.done` (OpenAI bills a response the model finished whether or not anyone
 * reads it, so its usage is what the caller owes). Past it, the output counted so far is billed.
 */
export const DRAIN_DEADLINE_MS = 10_000;

/**
 * The longest a session stays open: OpenAI ends its own after 30 minutes (60 with the GA models).
 * Bounding it here keeps a session's slot in the per-token socket cap (realtime.routes.ts) from
 * expiring while the socket is still open.
 */
export const MAX_SESSION_MS = 60 * 60_000;

/** The response in progress: seen `response.created`, not yet its `response.done`. */
interface InFlight {
  started: number;
  firstDelta: number;
  tally: ResponseTally;
}

/**
 * One client socket piped to one upstream socket. Frames go both ways unchanged; the upstream's
 * `response.created`, delta and `response.done` events are read (only those, and the session's
 * audio format) to bill each response, in order, before the next upstream frame is handled.
 *
 * The client leaving while a response is in progress does not end it: the upstream is read on,
 * nothing more forwarded, until that response's `response.done` (billed as usual) or
 * DRAIN_DEADLINE_MS. A response that never gets its `response.done` (deadline, upstream closed or
 * failed) is billed from what the upstream sent of it, at least its hold (realtime-tally.ts); only
 * a response that produced nothing gives its hold back. `onFinished` runs once, after the last
 * ledger outcome.
 */
export class RealtimePipe {
  private client: WebSocket | undefined;
  private readonly pending: Array<[RawData, boolean]> = [];
  private chain: Promise<void> = Promise.resolve();
  private current: InFlight | undefined;
  private bytesPerAudioToken = DEFAULT_AUDIO_BYTES_PER_TOKEN;
  private draining = false;
  private ended = false;
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly upstream: WebSocket,
    private readonly ch: RuntimeChannel,
    private readonly billing: RealtimeBilling,
    private readonly requestId: string,
    private readonly lang: Lang,
    private readonly log: FastifyBaseLogger,
    early: Array<[RawData, boolean]>,
    private readonly onFinished: () => void,
  ) {
    // Upstream frames (session.created) may arrive with the handshake, before the client's upgrade completes: kept in order.
    this.pending.push(...early);
    upstream.removeAllListeners('message');
    upstream.on('message', (data, isBinary) => {
      if (!this.client) this.pending.push([data, isBinary]);
      else this.fromUpstream(data, isBinary);
    });
    upstream.on('close', (code, reason) => this.end('upstream', code, reason));
    upstream.on('error', (err) => {
      this.log.warn({ err, channel: ch.id }, 'realtime upstream socket failed');
      this.end('upstream', 1011, 'upstream connection failed');
    });
  }

  attach(client: WebSocket): void {
    if (this.ended) {
      client.close(1011, 'upstream closed');
      return;
    }
    this.client = client;
    client.on('message', (data, isBinary) => {
      if (!this.draining && this.upstream.readyState === this.upstream.OPEN) this.upstream.send(data, { binary: isBinary });
    });
    client.on('close', (code, reason) => this.clientLeft(code, reason));
    // A frame over maxPayload lands here first (ws then closes the socket with 1009).
    client.on('error', (err) => {
      this.log.info({ err }, 'realtime client socket failed');
      this.clientLeft(1011, '');
    });
    const expiry = setTimeout(() => client.close(1001, 'session time limit reached'), MAX_SESSION_MS);
    expiry.unref();
    this.timers.push(expiry);
    for (const [data, isBinary] of this.pending.splice(0)) this.fromUpstream(data, isBinary);
    // The upstream may have gone while the client was upgrading.
    if (this.upstream.readyState !== this.upstream.OPEN && this.upstream.readyState !== this.upstream.CONNECTING) this.end('upstream', 1011, 'upstream closed');
  }

  /** The client's TCP socket closed before its upgrade completed (or the upgrade was refused). */
  socketClosed(): void {
    if (!this.client) this.end('client', 1001, '');
  }

  private clientLeft(code: number, reason: Buffer | string): void {
    if (this.ended || this.draining) return;
    if (this.current && this.upstream.readyState === this.upstream.OPEN) {
      this.draining = true;
      const deadline = setTimeout(() => this.end('server', 1000, 'client left'), DRAIN_DEADLINE_MS);
      deadline.unref();
      this.timers.push(deadline);
      return;
    }
    this.end('client', code, reason);
  }

  private fromUpstream(data: RawData, isBinary: boolean): void {
    // After the end every ledger outcome is decided: a late frame must not bill or hold anything.
    if (this.ended) return;
    this.chain = this.chain.then(() => this.forward(data, isBinary)).catch((err: unknown) => {
      this.log.error({ err }, 'realtime billing failed');
      this.end('server', 1011, 'billing failed');
    });
  }

  private async forward(data: RawData, isBinary: boolean): Promise<void> {
    const client = this.client!;
    if (!this.draining && client.readyState === client.OPEN) client.send(data, { binary: isBinary });
    if (isBinary) return;
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    // Only the few events that matter to billing are parsed, found by their type near the start of
    // the frame: large audio deltas are neither copied nor parsed.
    const head = buf.subarray(0, 200).toString('utf8');
    if (head.includes('"response.created"')) {
      this.current = { started: Date.now(), firstDelta: 0, tally: new ResponseTally(this.bytesPerAudioToken) };
      return;
    }
    if (/"response\.[a-z_.]*delta"/.test(head)) {
      if (!this.current) return;
      if (!this.current.firstDelta) this.current.firstDelta = Date.now();
      this.current.tally.add(head, buf);
      return;
    }
    if (head.includes('"session.created"') || head.includes('"session.updated"')) {
      this.readSession(buf);
      return;
    }
    if (!head.includes('"response.done"')) return;
    let event: { type?: unknown; response?: { usage?: unknown } };
    try {
      event = JSON.parse(buf.toString('utf8')) as typeof event;
    } catch {
      return;
    }
    if (event.type !== 'response.done') return;
    const response = this.current;
    this.current = undefined;
    const reported = realtimeUsage(event.response?.usage);
    const started = response?.started ?? Date.now();
    const frt = response?.firstDelta ? response.firstDelta - started : -1000;
    // No usage although output came through (a proxy that drops it): counted like a stream without usage.
    const usage = reported ?? (response?.tally.produced ? await response.tally.usage(this.billing.model) : undefined);
    if (!usage) {
      // Cancelled before the model ran: it costs nothing, its hold stays for the next response.
      if (this.draining) this.end('server', 1000, 'client left');
      return;
    }
    const paid = await this.billing.charge(this.ch, usage, started, frt, { estimated: !reported });
    if (this.draining) return this.end('server', 1000, 'client left');
    const refusal = await this.billing.reserveNext();
    if (!paid || refusal) this.outOfQuota(refusal);
  }

  private readSession(buf: Buffer): void {
    try {
      const bytes = audioBytesPerToken((JSON.parse(buf.toString('utf8')) as { session?: unknown }).session);
      if (bytes) this.bytesPerAudioToken = bytes;
    } catch {
      // Not JSON: the format stays what it was.
    }
  }

  /**
   * The caller cannot pay for another response: an `error` event, then both sockets close. A
   * periodic limit or plan allowance that is used up says so (`rate_limit_exceeded`, the window and
   * its refill time) rather than that the quota ran out.
   */
  private outOfQuota(refusal: RelayError | undefined): void {
    const client = this.client!;
    const windowed = refusal?.code === 'period_limit_exceeded';
    if (client.readyState === client.OPEN) {
      const base = serverMessage('RELAY_REALTIME_QUOTA_EXHAUSTED', this.lang);
      const message = windowed ? refusal.message : refusal ? `${base} (${refusal.message})` : base;
      const error = { type: windowed ? 'rate_limit_exceeded' : 'insufficient_quota', code: refusal?.code ?? 'insufficient_user_quota', message, param: null, event_id: null };
      client.send(JSON.stringify({ type: 'error', event_id: `evt_${this.requestId}`, error }));
    }
    this.end('server', 1008, windowed ? 'period limit reached' : 'insufficient quota');
  }

  private end(by: 'client' | 'upstream' | 'server', code: number, reason: Buffer | string): void {
    if (this.ended) return;
    this.ended = true;
    for (const t of this.timers) clearTimeout(t);
    const text = shortReason(reason);
    const close = (ws: WebSocket | undefined, fallback: number) => {
      if (ws && (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING)) ws.close(sendableCode(code, fallback), text);
    };
    if (by !== 'client') close(this.client, 1011);
    if (by !== 'upstream') close(this.upstream, 1000);
    // After the frames already read were billed: the response cut off is settled, what hold is left goes back.
    void this.chain
      .then(() => this.settleUnfinished())
      .then(() => this.billing.release())
      .catch((err: unknown) => this.log.error({ err }, 'realtime settlement at the end of the session failed'))
      .finally(() => this.onFinished());
  }

  private async settleUnfinished(): Promise<void> {
    const response = this.current;
    this.current = undefined;
    if (!response?.tally.produced) return;
    const frt = response.firstDelta ? response.firstDelta - response.started : -1000;
    await this.billing.charge(this.ch, await response.tally.usage(this.billing.model), response.started, frt, { estimated: true, unfinished: true });
  }
}
