import type { Transaction } from 'kysely';
import type { Db } from '../../db/client.js';
import type { Database } from '../../db/schema.js';
import type { ChannelTarget } from './types.js';

/** An upstream answer as the task relay reads it: the status and the parsed JSON (null when the body is not JSON). */
export interface TaskUpstreamReply {
  status: number;
  json: unknown;
}

/** Where a task stands, whatever words its upstream uses: only `success` and `failure` are final. */
export type TaskState = 'pending' | 'success' | 'failure';


/** What the framework needs to know of any stored task, whatever its table. */
export interface TaskRef {
  /** The local row id (the refund's ledger ref is built from it). */
  id: number;
  userId: number;
  channelId: number;
  /** The upstream's task id; empty when the upstream never accepted the job. */
  upstreamId: string;
  /** What the submit charged, and what a failure gives back. */
  quota: number;
  submittedAtMs: number;
  failReason: string;
  /** What the user knows the task as, when it is not the upstream's id (a video's public id): the refund log names it. */
  label?: string;
  /** The ledger request id the submit was charged under ('' on rows of earlier versions): the refund goes back to whoever it says paid. */
  requestId: string;
}

/** The columns to write after an upstream's word, and where the task then stands. */
export interface TaskStep<Patch> {
  patch: Patch;
  state: TaskState;
}

/**
 * A kind's table. An open task is one whose progress is not 100 %; `writeIfOpen` must only move a
 * task that is still open (a conditional update), which is what makes settling exactly-once.
 */
export interface TaskStore<Row, Patch> {
  loadOpen(db: Db, limit: number): Promise<Row[]>;
  ref(row: Row): TaskRef;
  writeIfOpen(trx: Transaction<Database>, row: Row, patch: Patch): Promise<boolean>;
}

/**
 * A task kind (contract v2, capability `tasks`): an upstream that accepts a job and is polled for
 * it. The kind says how to talk to the upstream, how its answers map onto the stored row and the
 * shared states, what a submit costs and how a failure is refunded; the framework (relay/tasks/)
 * owns charging, polling under the job lock and settling exactly once. Adding a kind (video
 * generation next) is one of these plus its routes.
 *
 * Methods are written in method syntax on purpose: a kind typed for its own row still fits the
 * registry's `TaskAdapter` (parameters of methods are compared both ways).
 */
export interface TaskAdapter<Row = unknown, Patch = unknown> {
  slug: string;
  contract: 2;
  types: readonly number[];
  /** Where its tasks are: `mj` rows live in `midjourneys`, every other kind's in `tasks` under this platform name. */
  platform: string;
  /** The modes cell of its channel types' rows in docs/providers.md, when not `tasks at \`/<platform>/*\` (no \`/v1\` mode)`. */
  docsModes?: string;
  /** The scheduler job (and its cluster lock) that polls this kind. */
  jobName: string;
  /** Sends `body` (or nothing, for a GET) to the upstream path below the channel's base URL. */
  call(target: ChannelTarget, method: 'GET' | 'POST', path: string, body: unknown, timeoutMs: number): Promise<TaskUpstreamReply>;
  /** The upstream's view of `ids` (one batch), or null when the upstream could not answer. */
  fetchMany(target: ChannelTarget, ids: readonly string[], timeoutMs: number): Promise<unknown[] | null>;
  /** The upstream task id an item of `fetchMany` is about (null: not an item of ours). */
  itemId(item: Record<string, unknown>): string | null;
  /** Where an upstream item says its task stands. */
  stateOf(item: Record<string, unknown>): TaskState;
  /** The row's columns after the upstream's word (null when nothing changes). */
  step(row: Row, item: Record<string, unknown>): TaskStep<Patch> | null;
  /** The item that fails a task the framework gives up on (timed out, channel gone, never submitted). */
  failure(reason: string): Record<string, unknown>;
  store: TaskStore<Row, Patch>;
  /** A task unfinished this long after its submit is failed and refunded. */
  timeout: { ms: number; reason: string };
  /** Price rule: the model an action is billed as, and its price in USD when no price is configured. */
  price: { model(action: string): string; defaultUsd(model: string): number };
  /**
   * Refund rule: a failed task gives its whole charge back where it came from — the wallet, or the
   * plan that paid — and to the windows it was counted in (not the token's limit), once per `<ref>:<row id>`.
   */
  refund: { ref: string; log(upstreamId: string, quota: number): string };
}
