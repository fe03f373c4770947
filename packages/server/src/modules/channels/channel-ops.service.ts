import { ChannelStatus, channelTargetProblem, channelTypeInfo, DEFAULT_CNY_PER_USD } from '@modelgate/shared';
import type { Config } from '../../config/config.js';
import type { Logger } from '../../log/logger.js';
import type { RelayServices } from '../../relay/relay-services.js';
import type { OptionsService } from '../options/options.service.js';
import type { ChannelsRepository } from './channels.repository.js';
import type { ChannelRow } from '../../db/schema.js';
import { AppError } from '../../http/errors.js';
import { nowSec } from '../../http/reply.js';
import { outboundAllowList } from '../../net/address-policy.js';
import { adapterFor } from '../../relay/adapters/registry.js';
import { MODE_FORMAT, type Adapter, type ConvertedReply, type UpstreamCall, type UpstreamError } from '../../relay/adapters/types.js';
import { toRuntime } from '../../relay/channel-cache.js';
import { isObj } from '../../relay/formats/shared/wire.js';
import type { ConvertContext, WireError } from '../../relay/formats/types.js';
import { exchange, getChain, type UpstreamBuffered, type UpstreamFailed } from '../../relay/upstream-client.js';
import { probeFailure, probeWords } from './channel-probe.js';
import { transportFailure, type UpstreamFailure } from './upstream-failure.js';

export interface TestResult {
  success: boolean;
  /** One of our message codes, or the upstream's own words (status reasons, logs, root). */
  message: string;
  /** Seconds, as the console shows it. */
  time: number;
  error?: WireError | UpstreamError;
  /** Set when the upstream failed: what an admin may be shown instead of `message`. */
  failure?: UpstreamFailure;
}

export interface BalanceResult {
  success: boolean;
  message: string;
  balance: number;
  failure?: UpstreamFailure;
}

/** Task relays have no chat endpoint to probe (reference §6.1). */
const untestable = (type: number) => channelTypeInfo(type)?.testable === false;
/** Types whose adapter knows the provider's balance endpoint (adapters/balance.ts). */
const hasBalance = (type: number) => adapterFor(type)?.balance !== undefined;
const TEST_TIMEOUT_MS = 60_000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A test reply is good when it carries usage, or when its upstream never reports any and it is counted locally (PaLM). */
function reportsOrCountsUsage(reply: ConvertedReply | undefined): boolean {
  return !!reply && (!!reply.usage || (!!reply.body && !!reply.withUsage));
}

/**
 * Channel health: single tests, the background test-all run (auto-disable on failure or a slow
 * answer, auto-enable on recovery), and upstream balances. Runs on any node; the periodic jobs
 * run on the master only.
 */
export class ChannelOps {
  private testing = false;
  private balancing = false;

  constructor(
    private readonly deps: {
      config: Pick<Config, 'pollingIntervalSec'>;
      options: OptionsService;
      channels: ChannelsRepository;
      relay: Pick<RelayServices, 'dispatcherFor' | 'guard' | 'autoDisableChannel' | 'onChannelStatus'>;
      log: Pick<Logger, 'error'>;
    },
  ) {}

  /**
   * The channel as the relay would use it, its stored key opened and its target guarded like the
   * relay's (when no root placed it); null when the key does not open.
   */
  private runtime(row: ChannelRow): ReturnType<typeof toRuntime> | null {
    try {
      return toRuntime(this.deps.channels.open(row), this.deps.relay.guard);
    } catch (e) {
      if (e instanceof AppError && e.code === 'CHANNEL_KEY_UNREADABLE') {
        this.deps.log.error({ channel: row.id }, e.message);
        return null;
      }
      throw e;
    }
  }

  get testRunning(): boolean {
    return this.testing;
  }

  /** Model for a test: ?model= (mapping applied), else test_model, else the first model (reference). */
  static testModel(row: ChannelRow, override?: string): string {
    const requested = override?.trim() || row.test_model?.trim() || (row.models ?? '').split(',')[0]?.trim() || 'gpt-3.5-turbo';
    if (!override?.trim()) return requested;
    const mapping = toRuntime(row).modelMapping;
    return mapping?.[requested] ?? requested;
  }

  /** One non-stream chat through the channel's adapter; stores response_time and test_time. */
  async test(row: ChannelRow, modelOverride?: string): Promise<TestResult> {
    const ch = this.runtime(row);
    if (!ch) return { success: false, message: 'CHANNEL_KEY_UNREADABLE', time: 0 };
    const adapter = adapterFor(ch.type);
    const model = ChannelOps.testModel(row, modelOverride);
    // Chat when the type serves it; embedding- or rerank-only types (Jina) are tested with what they serve.
    const mode = !adapter || adapter.modes.has('chat') ? 'chat' : adapter.modes.has('embeddings') ? 'embeddings' : 'rerank';
    const upstream = adapter?.upstreamFormat(mode, MODE_FORMAT[mode], model);
    if (untestable(ch.type) || !adapter || !upstream) {
      return { success: false, message: 'CHANNEL_TEST_UNSUPPORTED', time: 0 };
    }
    const body: Record<string, unknown> = { model };
    if (mode === 'embeddings') body.input = 'hi';
    else if (mode === 'rerank') Object.assign(body, { query: 'hi', documents: ['hi'] });
    else {
      body.messages = [{ role: 'user', content: 'hi' }];
      if (/^o\d/.test(model)) body.max_completion_tokens = 10;
      else body.max_tokens = 1;
    }
    // The adapter builds the request from an OpenAI-shaped body, as it does for a relayed call.
    const call: UpstreamCall = { ch: ch.target, mode, inbound: MODE_FORMAT[mode], upstream, model, stream: false, clientHeaders: {}, outboundAllow: () => outboundAllowList(this.deps.options) };
    const cx: ConvertContext = { lang: 'en', model, callerModel: model, clientWantsUsage: false, requestId: `channel-test-${row.id}`, stream: false };
    const started = performance.now();
    let result: TestResult;
    try {
      const built = await adapter.buildRequest(call, { body, raw: Buffer.from(JSON.stringify(body)), contentType: 'application/json', callerModel: model, cx });
      // The relay's own exchange: signing, the channel's pool, error reading, one retry with a fresh credential.
      const got = await exchange(built, { pools: this.deps.relay, adapter, call, statusMapping: ch.statusCodeMapping, headers: { 'content-type': 'application/json', accept: 'application/json' }, timeoutMs: TEST_TIMEOUT_MS, lang: 'en' });
      const time = (performance.now() - started) / 1000;
      result = got.ok ? this.judgeReply(got.kind === 'buffered' ? got : undefined, adapter, call, cx, time) : this.failedTest(row, got, time, built.url);
    } catch (err) {
      // A body the adapter refused before sending, or a follow-up that broke: said like a transport failure.
      const time = (performance.now() - started) / 1000;
      const failure = transportFailure(err, TEST_TIMEOUT_MS);
      const message = (err as Error).message;
      result = { success: false, message, time, error: { status: 0, type: 'do_request_failed', code: null, param: null, message }, failure };
    }
    await this.deps.channels.setStats(row.id, { response_time: Math.round(result.time * 1000), test_time: nowSec() });
    return result;
  }

  /** A test whose exchange failed: the relay's error for it, and what an admin is told. */
  private failedTest(row: ChannelRow, f: UpstreamFailed, time: number, url: string): TestResult {
    // A target saved before its rule (channel-targets.ts) is refused by the adapter: the rule is what the admin is told.
    const rule = f.stage === 'sign' && f.error.code === 'channel_target_invalid' ? channelTargetProblem(Number(row.type), row) : undefined;
    if (rule) return { success: false, message: rule, time, error: f.error };
    return { success: false, message: probeWords(f, TEST_TIMEOUT_MS), time, error: f.error, failure: probeFailure(f, 'HTTP 200: not JSON', TEST_TIMEOUT_MS, url) };
  }

  /** A 2xx test reply is good when it is JSON and, for chat, carries (or can be counted for) usage. */
  private judgeReply(got: UpstreamBuffered | undefined, adapter: Adapter, call: UpstreamCall, cx: ConvertContext, time: number): TestResult {
    const bad = (detail: string, message: string): TestResult => ({ success: false, message, time, error: { status: 200, type: 'invalid_response', code: null, param: null, message }, failure: { code: 'CHANNEL_UPSTREAM_BAD_RESPONSE', detail } });
    if (!got?.json) return bad(`HTTP ${got?.status ?? 200}: not JSON`, 'upstream answered with invalid JSON');
    if (call.mode === 'chat' && !reportsOrCountsUsage(adapter.convertResponse(call, got.json, cx))) return bad(`HTTP ${got.status}: no usage`, 'upstream answered without usage');
    return { success: true, message: '', time };
  }

  /**
   * Tests every channel, one at a time (POLLING_INTERVAL apart). An enabled channel with auto_ban
   * is auto-disabled when the failure says its credentials or account are dead (and the
   * AutomaticDisableChannelEnabled option is on), or when it answers slower than
   * ChannelDisableThreshold seconds; an auto-disabled channel that passes is enabled again when
   * AutomaticEnableChannelEnabled is on. Returns false when a run is already going.
   */
  startTestAll(): boolean {
    if (this.testing) return false;
    void this.runTestAll().catch((err: unknown) => this.deps.log.error({ err }, 'channel test-all failed'));
    return true;
  }

  /** Awaitable run for the periodic job (which holds the job lock meanwhile); skipped while one is going here. */
  async runTestAll(): Promise<{ tested: number; disabled: number; enabled: number } | undefined> {
    if (this.testing) return undefined;
    this.testing = true;
    try {
      return await this.testAll();
    } finally {
      this.testing = false;
    }
  }

  /** Awaitable variant for the periodic job and tests; callers must check `testRunning` first. */
  async testAll(): Promise<{ tested: number; disabled: number; enabled: number }> {
    const o = this.deps.options;
    const rows = await this.deps.channels.list({ idSort: true });
    let tested = 0;
    let disabled = 0;
    let enabled = 0;
    for (const row of rows) {
      if (untestable(row.type) || row.status === ChannelStatus.ManuallyDisabled) continue;
      const r = await this.test(row);
      tested++;
      const threshold = o.num('ChannelDisableThreshold');
      const tooSlow = threshold > 0 && r.time > threshold;
      if (row.status === ChannelStatus.Enabled && row.auto_ban === 1) {
        const dead = !!r.error && 'disablesChannel' in r.error && r.error.disablesChannel && o.bool('AutomaticDisableChannelEnabled');
        if (dead || tooSlow) {
          const reason = dead ? r.message : `response time ${r.time.toFixed(2)}s exceeds the threshold of ${threshold}s`;
          if (await this.deps.relay.autoDisableChannel(row.id, reason)) disabled++;
        }
      } else if (row.status === ChannelStatus.AutoDisabled && r.success && !tooSlow && o.bool('AutomaticEnableChannelEnabled')) {
        if (await this.deps.channels.update(row.id, { status: ChannelStatus.Enabled, other_info: '' }, ChannelStatus.AutoDisabled)) {
          enabled++;
          this.deps.relay.onChannelStatus({ id: row.id, status: 'enabled', reason: '' });
        }
      }
      if (this.deps.config.pollingIntervalSec > 0) await sleep(this.deps.config.pollingIntervalSec * 1000);
    }
    return { tested, disabled, enabled };
  }

  /** The channel's balance as its adapter's balance query reads it (adapters/balance.ts). */
  async updateBalance(row: ChannelRow): Promise<BalanceResult> {
    const query = adapterFor(row.type)?.balance;
    if (!query) return { success: false, message: 'CHANNEL_BALANCE_UNSUPPORTED', balance: 0 };
    const ch = this.runtime(row);
    if (!ch) return { success: false, message: 'CHANNEL_KEY_UNREADABLE', balance: 0 };
    // The adapter's queries one after another, each through the relay's exchange (pool, time cap, error reading, fresh-credential retry).
    const got = await getChain({
      pools: this.deps.relay,
      adapter: adapterFor(row.type)!,
      target: ch.target,
      statusMapping: ch.statusCodeMapping,
      lang: 'en',
      timeoutMs: TEST_TIMEOUT_MS,
      next: (replies) => (replies.every(isObj) ? query.request(ch.target, replies) : undefined),
    });
    const notObject = 'HTTP 200: not a JSON object';
    if (!got.ok) return { success: false, message: probeWords(got, TEST_TIMEOUT_MS), balance: 0, failure: probeFailure(got, notObject, TEST_TIMEOUT_MS) };
    const replies = got.replies.filter(isObj);
    if (replies.length !== got.replies.length) return { success: false, message: 'the upstream answered with JSON that is not an object', balance: 0, failure: { code: 'CHANNEL_UPSTREAM_BAD_RESPONSE', detail: notObject } };
    // Balances are kept in USD; a provider that answers in yuan is converted at the Price option's rate.
    const price = this.deps.options.num('Price');
    const balance = query.read(replies, { ch: ch.target, cnyPerUsd: price > 0 ? price : DEFAULT_CNY_PER_USD });
    if (typeof balance !== 'number') return { success: false, message: balance.error, balance: 0, failure: { code: 'CHANNEL_UPSTREAM_BAD_RESPONSE', detail: 'HTTP 200: no numeric balance' } };
    await this.deps.channels.setStats(row.id, { balance, balance_updated_time: nowSec() });
    return { success: true, message: '', balance };
  }

  /** Updates every enabled balance-capable channel; one at or below zero is auto-disabled. */
  async updateAllBalances(): Promise<{ updated: number; disabled: number }> {
    if (this.balancing) return { updated: 0, disabled: 0 };
    this.balancing = true;
    try {
      const rows = (await this.deps.channels.list({ idSort: true })).filter((r) => r.status === ChannelStatus.Enabled && hasBalance(r.type));
      let updated = 0;
      let disabled = 0;
      for (const row of rows) {
        const r = await this.updateBalance(row);
        if (!r.success) continue;
        updated++;
        if (r.balance <= 0 && row.auto_ban === 1 && (await this.deps.relay.autoDisableChannel(row.id, `insufficient balance: $${r.balance.toFixed(2)}`))) disabled++;
        if (this.deps.config.pollingIntervalSec > 0) await sleep(this.deps.config.pollingIntervalSec * 1000);
      }
      return { updated, disabled };
    } finally {
      this.balancing = false;
    }
  }

  get balanceRunning(): boolean {
    return this.balancing;
  }
}
