import { serverMessage, type Lang } from '@modelgate/shared';
import type { FastifyBaseLogger } from 'fastify';
import type { RawData, WebSocket } from 'ws';
import type { RuntimeChannel } from '../channel-cache.js';
import type { RelayError } from '../relay-error.js';
import { realtimeUsage, type RealtimeBilling } from './realtime-billing.js';

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
 * One client socket piped to one upstream socket. Frames go both ways unchanged; the upstream's
 * `response.done` events are read (only those) to bill their usage, in order, before the next
 * upstream frame is handled. Either side closing closes the other; the open hold is released.
 */
export class RealtimePipe {
  private client: WebSocket | undefined;
  private readonly pending: Array<[RawData, boolean]> = [];
  private chain: Promise<void> = Promise.resolve();
  private responseStarted = 0;
  private firstDelta = 0;
  private ended = false;

  constructor(
    private readonly upstream: WebSocket,
    private readonly ch: RuntimeChannel,
    private readonly billing: RealtimeBilling,
    private readonly requestId: string,
    private readonly lang: Lang,
    private readonly log: FastifyBaseLogger,
    early: Array<[RawData, boolean]>,
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
    this.client = client;
    client.on('message', (data, isBinary) => {
      if (this.upstream.readyState === this.upstream.OPEN) this.upstream.send(data, { binary: isBinary });
    });
    client.on('close', (code, reason) => this.end('client', code, reason));
    client.on('error', (err) => {
      this.log.info({ err }, 'realtime client socket failed');
      this.end('client', 1011, '');
    });
    for (const [data, isBinary] of this.pending.splice(0)) this.fromUpstream(data, isBinary);
    // The upstream may have gone while the client was upgrading.
    if (this.upstream.readyState !== this.upstream.OPEN && this.upstream.readyState !== this.upstream.CONNECTING) this.end('upstream', 1011, 'upstream closed');
  }

  private fromUpstream(data: RawData, isBinary: boolean): void {
    this.chain = this.chain.then(() => this.forward(data, isBinary)).catch((err: unknown) => {
      this.log.error({ err }, 'realtime billing failed');
      this.end('upstream', 1011, 'billing failed');
    });
  }

  private async forward(data: RawData, isBinary: boolean): Promise<void> {
    const client = this.client!;
    if (client.readyState === client.OPEN) client.send(data, { binary: isBinary });
    if (isBinary) return;
    const buf = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
    // Only the few events that matter to billing are parsed, found by their type near the start of
    // the frame: large audio deltas are neither copied nor scanned.
    const head = buf.subarray(0, 200).toString('utf8');
    if (head.includes('"response.created"')) {
      this.responseStarted = Date.now();
      this.firstDelta = 0;
    } else if (!this.firstDelta && /"response\.[a-z_.]*delta"/.test(head)) this.firstDelta = Date.now();
    if (!head.includes('"response.done"')) return;
    let event: { type?: unknown; response?: { usage?: unknown } };
    try {
      event = JSON.parse(buf.toString('utf8')) as typeof event;
    } catch {
      return;
    }
    if (event.type !== 'response.done') return;
    const usage = realtimeUsage(event.response?.usage);
    // A response without usage (cancelled before the model ran) costs nothing: its hold stays for the next one.
    if (!usage) return;
    const started = this.responseStarted || Date.now();
    const paid = await this.billing.charge(this.ch, usage, started, this.firstDelta ? this.firstDelta - started : -1000);
    this.responseStarted = 0;
    const refusal = await this.billing.reserveNext();
    if (!paid || refusal) this.outOfQuota(refusal);
  }

  /** The caller cannot pay for another response: an `error` event, then both sockets close. */
  private outOfQuota(refusal: RelayError | undefined): void {
    const client = this.client!;
    if (client.readyState === client.OPEN) {
      const base = serverMessage('RELAY_REALTIME_QUOTA_EXHAUSTED', this.lang);
      const message = refusal ? `${base} (${refusal.message})` : base;
      const error = { type: 'insufficient_quota', code: refusal?.code ?? 'insufficient_user_quota', message, param: null, event_id: null };
      client.send(JSON.stringify({ type: 'error', event_id: `evt_${this.requestId}`, error }));
    }
    this.end('server', 1008, 'insufficient quota');
  }

  private end(by: 'client' | 'upstream' | 'server', code: number, reason: Buffer | string): void {
    if (this.ended) return;
    this.ended = true;
    const text = shortReason(reason);
    const close = (ws: WebSocket | undefined, fallback: number) => {
      if (ws && (ws.readyState === ws.OPEN || ws.readyState === ws.CONNECTING)) ws.close(sendableCode(code, fallback), text);
    };
    if (by !== 'client') close(this.client, 1011);
    if (by !== 'upstream') close(this.upstream, 1000);
    // After the last response in flight was billed: whatever hold is left goes back.
    void this.chain.then(() => this.billing.release()).catch((err: unknown) => this.log.error({ err }, 'realtime hold release failed'));
  }
}
