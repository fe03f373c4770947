import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { SETTLED } from './statements.js';

/**
 * Reconciliation (docs/ledger.md): recomputes every user's and token's balances from the ledger
 * alone and compares them with the stored ones.
 *
 *   user.quota      = Σ entries.quota_delta − Σ open reservations − Σ settled charges
 *   user.used_quota = Σ entries.used_delta + Σ settled charges
 *   user.aff_quota  = Σ entries.aff_delta
 *   token.remain    = Σ entries.token_remain_delta − Σ open token reservations − Σ settled token_taken
 *   token.used      = Σ entries.token_used_delta + Σ settled charges of the token
 *
 * Charges a subscription paid (`paid_by`) leave the wallet alone; they count in `used_quota`. And
 * for every window whose period is still running (docs/ledger.md "Windows and plans"):
 *
 *   counter.quota_used    = Σ window_charges.quota    of that account, window and period
 *   counter.requests_used = Σ window_charges.requests of that account, window and period
 */
export interface Mismatch {
  account: 'user' | 'token' | 'window';
  id: number;
  /** The user's name (users), the owner's id (tokens), or the window (`s12/day`). */
  name: string;
  field: 'quota' | 'used_quota' | 'aff_quota' | 'remain_quota' | 'quota_used' | 'requests_used';
  expected: number;
  actual: number;
}

export interface AccountSummary {
  id: number;
  opening: number;
  credits: number;
  charges: number;
  held: number;
  balance: number;
}

export interface Reconciliation {
  ok: boolean;
  users: number;
  tokens: number;
  requests: { settled: number; released: number; open: number };
  mismatches: Mismatch[];
  /** Per user: opening + credits − charges − held = balance (only accounts with a mismatch, or all with `detail`). */
  accounts: AccountSummary[];
}

type Sums = Map<number, number[]>;

function sums(rows: Array<Record<string, unknown>>, key: string, fields: string[]): Sums {
  const out: Sums = new Map();
  for (const r of rows) out.set(Number(r[key]), fields.map((f) => Number(r[f] ?? 0)));
  return out;
}

const at = (m: Sums, id: number, i: number) => m.get(id)?.[i] ?? 0;

export async function reconcile(db: Kysely<Database>, opts: { detail?: boolean } = {}): Promise<Reconciliation> {
  const [users, tokens, entriesU, entriesT, openingU, heldU, heldT, chargedU, chargedT, states] = await Promise.all([
    db.selectFrom('users').select(['id', 'username', 'quota', 'used_quota', 'aff_quota']).execute(),
    db.selectFrom('tokens').select(['id', 'user_id', 'remain_quota', 'used_quota']).execute(),
    db
      .selectFrom('ledger_entries')
      .select((eb) => ['user_id', eb.fn.sum<number>('quota_delta').as('q'), eb.fn.sum<number>('used_delta').as('u'), eb.fn.sum<number>('aff_delta').as('a')])
      .groupBy('user_id')
      .execute(),
    db
      .selectFrom('ledger_entries')
      .select((eb) => ['token_id', eb.fn.sum<number>('token_remain_delta').as('r'), eb.fn.sum<number>('token_used_delta').as('tu')])
      .where('token_id', '>', 0)
      .groupBy('token_id')
      .execute(),
    db.selectFrom('ledger_entries').select((eb) => ['user_id', eb.fn.sum<number>('quota_delta').as('q')]).where('kind', '=', 'opening').groupBy('user_id').execute(),
    db.selectFrom('reservations').select((eb) => ['user_id', eb.fn.sum<number>('user_amount').as('h')]).groupBy('user_id').execute(),
    db.selectFrom('reservations').select((eb) => ['token_id', eb.fn.sum<number>('token_amount').as('h')]).groupBy('token_id').execute(),
    db
      .selectFrom('ledger_requests')
      .select((eb) => ['user_id', eb.fn.sum<number>('charge').as('c'), eb.fn.sum<number>(sql`CASE WHEN paid_by = 0 THEN charge ELSE 0 END`).as('w')])
      .where('state', '=', SETTLED)
      .groupBy('user_id')
      .execute(),
    db
      .selectFrom('ledger_requests')
      .select((eb) => ['token_id', eb.fn.sum<number>('token_taken').as('t'), eb.fn.sum<number>('charge').as('c')])
      .where('state', '=', SETTLED)
      .where('token_id', '>', 0)
      .groupBy('token_id')
      .execute(),
    db.selectFrom('ledger_requests').select((eb) => ['state', eb.fn.countAll<number>().as('n')]).groupBy('state').execute(),
  ]);
  const eu = sums(entriesU, 'user_id', ['q', 'u', 'a']);
  const et = sums(entriesT, 'token_id', ['r', 'tu']);
  const ou = sums(openingU, 'user_id', ['q']);
  const hu = sums(heldU, 'user_id', ['h']);
  const ht = sums(heldT, 'token_id', ['h']);
  const cu = sums(chargedU, 'user_id', ['c', 'w']);
  const ct = sums(chargedT, 'token_id', ['t', 'c']);

  const mismatches: Mismatch[] = [];
  const accounts: AccountSummary[] = [];
  for (const u of users) {
    const id = Number(u.id);
    const expected = {
      quota: at(eu, id, 0) - at(hu, id, 0) - at(cu, id, 1),
      used_quota: at(eu, id, 1) + at(cu, id, 0),
      aff_quota: at(eu, id, 2),
    };
    let bad = false;
    for (const field of ['quota', 'used_quota', 'aff_quota'] as const) {
      const actual = Number(u[field]);
      if (actual !== expected[field]) {
        bad = true;
        mismatches.push({ account: 'user', id, name: u.username, field, expected: expected[field], actual });
      }
    }
    if (bad || opts.detail) {
      const opening = at(ou, id, 0);
      accounts.push({ id, opening, credits: at(eu, id, 0) - opening, charges: at(cu, id, 1), held: at(hu, id, 0), balance: Number(u.quota) });
    }
  }
  for (const t of tokens) {
    const id = Number(t.id);
    const remain = at(et, id, 0) - at(ht, id, 0) - at(ct, id, 0);
    const used = at(et, id, 1) + at(ct, id, 1);
    if (Number(t.remain_quota) !== remain) mismatches.push({ account: 'token', id, name: `user ${t.user_id}`, field: 'remain_quota', expected: remain, actual: Number(t.remain_quota) });
    if (Number(t.used_quota) !== used) mismatches.push({ account: 'token', id, name: `user ${t.user_id}`, field: 'used_quota', expected: used, actual: Number(t.used_quota) });
  }
  mismatches.push(...(await reconcileWindows(db)));
  const count = (s: number) => Number(states.find((r) => Number(r.state) === s)?.n ?? 0);
  const open = (await db.selectFrom('reservations').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirst())?.n ?? 0;
  return {
    ok: mismatches.length === 0,
    users: users.length,
    tokens: tokens.length,
    requests: { settled: count(SETTLED), released: count(3), open: Number(open) },
    mismatches,
    accounts,
  };
}

/** Every running period's counter against the sum of its charges. */
async function reconcileWindows(db: Kysely<Database>): Promise<Mismatch[]> {
  const now = Math.floor(Date.now() / 1000);
  const [counters, charges] = await Promise.all([
    db.selectFrom('window_counters').selectAll().where('period_end', '>', now).execute(),
    db
      .selectFrom('window_charges as c')
      .innerJoin('window_counters as w', (j) => j.onRef('w.account', '=', 'c.account').onRef('w.win', '=', 'c.win').onRef('w.period_start', '=', 'c.period_start'))
      .select((eb) => ['c.account', 'c.win', eb.fn.sum<number>('c.quota').as('q'), eb.fn.sum<number>('c.requests').as('r')])
      .where('w.period_end', '>', now)
      .groupBy(['c.account', 'c.win'])
      .execute(),
  ]);
  const sumsBy = new Map(charges.map((c) => [`${c.account}/${c.win}`, [Number(c.q ?? 0), Number(c.r ?? 0)]]));
  const out: Mismatch[] = [];
  for (const w of counters) {
    const name = `${w.account}/${w.win}`;
    const [q = 0, r = 0] = sumsBy.get(name) ?? [];
    const id = Number(w.account.slice(1)) || 0;
    if (Number(w.quota_used) !== q) out.push({ account: 'window', id, name, field: 'quota_used', expected: q, actual: Number(w.quota_used) });
    if (Number(w.requests_used) !== r) out.push({ account: 'window', id, name, field: 'requests_used', expected: r, actual: Number(w.requests_used) });
  }
  return out;
}

/** Human-readable report lines (the CLI and the admin API's `lines`). */
export function formatReconciliation(r: Reconciliation, fixReport = false): string[] {
  const lines = [
    `checked ${r.users} users and ${r.tokens} tokens; requests: ${r.requests.settled} settled, ${r.requests.released} released, ${r.requests.open} open`,
  ];
  for (const a of r.accounts) {
    lines.push(`user #${a.id}: opening ${a.opening} + credits ${a.credits} − charges ${a.charges} − held ${a.held} = ${a.opening + a.credits - a.charges - a.held} (stored ${a.balance})`);
  }
  for (const m of r.mismatches) {
    lines.push(`MISMATCH ${m.account} #${m.id} (${m.name}) ${m.field}: ledger says ${m.expected}, stored ${m.actual} (difference ${m.actual - m.expected})`);
    if (fixReport) {
      if (m.account === 'window') {
        const [account, win] = m.name.split('/');
        lines.push(`  to match the charges: UPDATE window_counters SET ${m.field} = ${m.expected} WHERE account = '${account}' AND win = '${win}';`);
      } else {
        const table = m.account === 'user' ? 'users' : 'tokens';
        lines.push(`  to match the ledger: UPDATE ${table} SET ${m.field} = ${m.expected} WHERE id = ${m.id};  -- or record the missing movement in ledger_entries`);
      }
    }
  }
  lines.push(r.ok ? 'ledger reconciles' : `ledger does NOT reconcile: ${r.mismatches.length} mismatch(es)`);
  return lines;
}
