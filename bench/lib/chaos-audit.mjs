// The chaos soak's end-of-run audit: every record the clients kept (request id, outcome, reported
// usage) against the database the two nodes shared — ledger_requests (one outcome row per request,
// its primary key), the consume log rows (logs.type 2), open reservations and the users' balances.
import { MODELS } from './chaos-traffic.mjs';

/** The prices the soak sets (ModelRatio / CompletionRatio options); the default group's ratio is 1. */
export const PRICES = {
  [MODELS.chat]: { ratio: 1, completion: 2 },
  [MODELS.anth]: { ratio: 2, completion: 3 },
  [MODELS.embed]: { ratio: 0.5, completion: 1 },
};
const KIND_MODEL = { chat: MODELS.chat, 'chat stream': MODELS.chat, 'messages ingress': MODELS.chat, 'converted stream': MODELS.anth, embeddings: MODELS.embed };
/** Every text request asks max_tokens 16; a prompt is under 200 tokens (its body's bytes bound it). */
const MAX_TOKENS = 16;
const PROMPT_CEILING = 200;

/** The ledger's cost of a usage in ratio mode (shared/pricing usageQuota with no cache or audio). */
export function expectedCharge(kind, usage) {
  const p = PRICES[KIND_MODEL[kind]];
  const quota = Math.round((usage.prompt + Math.round(usage.completion * p.completion)) * p.ratio);
  return quota === 0 && usage.prompt + usage.completion > 0 ? 1 : quota;
}

/** The most a request of `kind` may be charged whatever happened to it (its reservation's ceiling). */
function ceiling(kind) {
  const p = PRICES[KIND_MODEL[kind]];
  return Math.round((PROMPT_CEILING + MAX_TOKENS * p.completion) * p.ratio);
}

/** Sums of the users' balances: quota + used_quota is what was credited, whatever was spent. */
export async function balanceTotals(pg) {
  const u = (await pg.query('SELECT COALESCE(SUM(quota),0)::bigint AS quota, COALESCE(SUM(used_quota),0)::bigint AS used FROM users')).rows[0];
  const r = (await pg.query('SELECT COUNT(*)::int AS n, COALESCE(SUM(user_amount),0)::bigint AS held FROM reservations')).rows[0];
  return { quota: Number(u.quota), used: Number(u.used), reservations: r.n, held: Number(r.held) };
}

function bump(map, key, by = 1) {
  map.set(key, (map.get(key) ?? 0) + by);
}

/**
 * Holds the records against the database. Returns { checks: [{ name, ok, detail }], figures }.
 * `initial`: balanceTotals() before the traffic started.
 */
export async function audit(pg, records, initial) {
  const outcomes = new Map();
  for (const row of (await pg.query('SELECT request_id, state, charge, shortfall, user_id FROM ledger_requests')).rows) {
    outcomes.set(row.request_id, { state: Number(row.state), charge: Number(row.charge), shortfall: Number(row.shortfall), user: Number(row.user_id) });
  }
  const logs = new Map();
  for (const row of (await pg.query('SELECT request_id, quota FROM logs WHERE type = 2 AND request_id IS NOT NULL')).rows) {
    const l = logs.get(row.request_id) ?? { n: 0, quota: 0 };
    l.n += 1;
    l.quota += Number(row.quota);
    logs.set(row.request_id, l);
  }
  const seen = new Set();
  const bad = { servedUnsettled: [], servedWrongCharge: [], servedLog: [], refusedCharged: [], failedOverCeiling: [] };
  const failedCharged = new Map();
  let servedNoUsage = 0;
  let servedNoId = 0;
  let failedChargedSum = 0;
  let servedCharged = 0;
  for (const r of records) {
    if (r.id) seen.add(r.id);
    const o = r.id ? outcomes.get(r.id) : undefined;
    const settled = o?.state === 2;
    if (r.outcome === 'served') {
      if (!r.id) servedNoId += 1;
      else if (!settled) bad.servedUnsettled.push(`${r.id} (${r.kind}, ${o ? `state ${o.state}` : 'no outcome row'})`);
      else {
        servedCharged += o.charge;
        if (!r.usage) servedNoUsage += 1;
        // A shortfall is the unpaid rest of a clamped reply: charge + shortfall is the reply's cost.
        else if (o.charge + o.shortfall !== expectedCharge(r.kind, r.usage)) bad.servedWrongCharge.push(`${r.id} (${r.kind}: usage ${r.usage.prompt}+${r.usage.completion} costs ${expectedCharge(r.kind, r.usage)}, charged ${o.charge} + shortfall ${o.shortfall})`);
        const l = logs.get(r.id);
        if (!l || l.n !== 1 || l.quota !== o.charge) bad.servedLog.push(`${r.id} (${l ? `${l.n} log rows, quota ${l.quota}` : 'no log row'}, charge ${o.charge})`);
      }
    } else if (r.outcome === 'refused') {
      if (settled && o.charge > 0) bad.refusedCharged.push(`${r.id} (${r.reason}: charged ${o.charge})`);
    } else if (settled) {
      bump(failedCharged, r.reason);
      failedChargedSum += o.charge;
      if (o.charge > ceiling(r.kind)) bad.failedOverCeiling.push(`${r.id} (${r.kind}, ${r.reason}: charged ${o.charge} > ceiling ${ceiling(r.kind)})`);
    }
  }
  // Outcome rows for requests whose reply headers never reached a client (a connection lost before
  // the status line — the SIGKILL, a reset): allowed only as settled-before-sent races, so counted.
  let unseenSettled = 0;
  let unseenCharge = 0;
  let unseenReleased = 0;
  for (const [id, o] of outcomes) {
    if (seen.has(id)) continue;
    if (o.state === 2) {
      unseenSettled += 1;
      unseenCharge += o.charge;
    } else unseenReleased += 1;
  }
  let duplicateLogs = 0;
  for (const [, l] of logs) if (l.n > 1) duplicateLogs += 1;
  const end = await balanceTotals(pg);
  const credited = initial.quota + initial.used + initial.held;
  const now = end.quota + end.used + end.held;
  const settledSum = [...outcomes.values()].filter((o) => o.state === 2).reduce((a, o) => a + o.charge, 0);
  const sample = (xs) => (xs.length ? `; e.g. ${xs.slice(0, 3).join('; ')}` : '');
  const checks = [
    { name: 'every served answer has exactly one settled outcome row', ok: bad.servedUnsettled.length === 0 && servedNoId === 0, detail: `${bad.servedUnsettled.length} without one, ${servedNoId} without a request id${sample(bad.servedUnsettled)}` },
    { name: 'each served answer was charged exactly its reported usage at the soak prices', ok: bad.servedWrongCharge.length === 0 && servedNoUsage === 0, detail: `${bad.servedWrongCharge.length} off, ${servedNoUsage} without usage to check${sample(bad.servedWrongCharge)}` },
    { name: 'each served answer has one consume log row with the charged quota', ok: bad.servedLog.length === 0, detail: `${bad.servedLog.length} off${sample(bad.servedLog)}` },
    { name: 'no request id has two consume log rows', ok: duplicateLogs === 0, detail: `${duplicateLogs}` },
    { name: 'refused requests are not charged', ok: bad.refusedCharged.length === 0, detail: `${bad.refusedCharged.length} charged${sample(bad.refusedCharged)}` },
    { name: 'a failed or cut request is charged at most its reservation ceiling', ok: bad.failedOverCeiling.length === 0, detail: `${bad.failedOverCeiling.length} over${sample(bad.failedOverCeiling)}` },
    { name: 'no reservation is left open', ok: end.reservations === 0, detail: `${end.reservations} open, holding ${end.held}` },
    { name: 'Σ users (quota + used_quota + held) is what was credited before the run', ok: credited === now, detail: `before ${credited}, after ${now} (quota ${end.quota}, used ${end.used}, held ${end.held})` },
    { name: 'used_quota grew by exactly the settled charges', ok: end.used - initial.used === settledSum, detail: `used +${end.used - initial.used}, settled charges ${settledSum}` },
  ];
  return {
    checks,
    figures: { outcomeRows: outcomes.size, settledSum, servedCharged, failedCharged: [...failedCharged.entries()], failedChargedSum, unseenSettled, unseenCharge, unseenReleased },
  };
}
