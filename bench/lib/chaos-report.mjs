// The chaos soak's markdown report: what was sent and what came of it, the fault timeline, the
// money checks, ledger:check and how the nodes stopped.
import { pinningNote } from './harness.mjs';

const pct = (n, total) => (total ? `${((100 * n) / total).toFixed(2)} %` : '-');

function counted(records, key) {
  const m = new Map();
  for (const r of records) {
    const k = key(r);
    const e = m.get(k) ?? { n: 0, example: '' };
    e.n += 1;
    e.example ||= r.example ? `${r.example}” (${r.kind}, user ${r.user ?? '?'}, node ${r.node})` : '';
    m.set(k, e);
  }
  return [...m.entries()].sort((a, b) => b[1].n - a[1].n);
}

/** The holds still open when the traffic stopped, by node, and what became of them. */
function leftoverNote(leftover, records, t0) {
  if (!leftover.length) return 'none';
  const byId = new Map(records.filter((r) => r.id).map((r) => [r.id, r]));
  const nodes = counted(leftover, (l) => l.node).map(([k, e]) => `${k}: ${e.n}`);
  const fate = counted(leftover, (l) => (l.state === 2 ? 'settled' : l.state === 3 ? 'released' : 'no outcome yet')).map(([k, e]) => `${k} ${e.n}`);
  const client = counted(leftover, (l) => {
    const r = byId.get(l.id);
    return r ? `client saw ${r.outcome} (${r.kind}${r.reason ? `, ${r.reason}` : ''})` : 'client saw no reply headers';
  }).map(([k, e]) => `${k}: ${e.n}`);
  const at = leftover.map((l) => l.createdAt - t0 / 1000);
  return `${leftover.length} (${nodes.join(', ')}; reserved between ${Math.min(...at).toFixed(0)} s and ${Math.max(...at).toFixed(0)} s into the traffic), holding ${leftover.reduce((a, l) => a + l.held, 0)} quota; afterwards ${fate.join(', ')}; ${client.join('; ')}`;
}

export function chaosReport({ minutes, loops, records, warm, timeline, windows, settle, spools, stops, ledgerCheck, result, after, nodesLogs, build, t0 }) {
  const total = records.length;
  const by = (o) => records.filter((r) => r.outcome === o);
  const served = by('served');
  const refused = by('refused');
  const failed = by('failed');
  const lines = [];
  const row = (...cells) => lines.push(`| ${cells.join(' | ')} |`);
  lines.push(`# Chaos soak, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`, '');
  lines.push(
    `${minutes} min, ${loops} client loops over two ModelGate nodes (separate processes, NODE_ID chaos-a / chaos-b) on one PostgreSQL database and one Redis database, each reaching PostgreSQL, Redis and the three upstream fakes (two OpenAI, one Anthropic) through fault proxies; ${warm} warm-up requests before the clock (audited too). Server: ${build}; DB_OUTAGE_MODE and LEDGER_LEASE_SEC at their defaults (serve, 60 s), SQL_MAX_OPEN_CONNS=10 per node. ${pinningNote()}.`,
    '',
  );
  lines.push('## Requests', '', '| | count | share |', '|---|---:|---:|');
  row('sent', total, '100 %');
  row('served (2xx, complete answer)', served.length, pct(served.length, total));
  row('refused', refused.length, pct(refused.length, total));
  for (const [k, e] of counted(refused, (r) => r.reason)) row(`  refused: ${k}`, e.n, pct(e.n, total));
  row('failed', failed.length, pct(failed.length, total));
  for (const [k, e] of counted(failed, (r) => r.reason)) row(`  failed: ${k}`, e.n, pct(e.n, total));
  lines.push('', '| kind | sent | served | refused | failed |', '|---|---:|---:|---:|---:|');
  for (const [kind] of counted(records, (r) => r.kind)) {
    const k = records.filter((r) => r.kind === kind);
    row(kind, k.length, k.filter((r) => r.outcome === 'served').length, k.filter((r) => r.outcome === 'refused').length, k.filter((r) => r.outcome === 'failed').length);
  }
  lines.push('', '| node | sent | served | failed |', '|---|---:|---:|---:|');
  for (const [node] of counted(records, (r) => r.node)) {
    const k = records.filter((r) => r.node === node);
    row(node, k.length, k.filter((r) => r.outcome === 'served').length, k.filter((r) => r.outcome === 'failed').length);
  }
  const examples = counted([...refused, ...failed].filter((r) => r.example), (r) => r.reason).slice(0, 12);
  if (examples.length) {
    lines.push('', 'Example messages:', '');
    for (const [k, e] of examples) lines.push(`- ${k}: “${String(e.example).replace(/\n/g, ' ')}`);
  }
  lines.push('', '## Faults (seconds from the start of the traffic)', '');
  for (const t of timeline) lines.push(`- ${t}`);
  lines.push('', 'Requests started inside each fault window (the bad-key and unknown-model kinds left out):', '', '| window | sent | served | refused | failed | served: p50 / max s |', '|---|---:|---:|---:|---:|---:|');
  const billable = records.filter((r) => r.kind !== 'bad key' && r.kind !== 'unknown model');
  for (const w of windows) {
    const k = billable.filter((r) => r.t >= w.from && r.t < (w.to ?? Infinity));
    const ms = k.filter((r) => r.outcome === 'served').map((r) => r.ms).sort((x, y) => x - y);
    const sec = (x) => (x === undefined ? '-' : (x / 1000).toFixed(2));
    row(w.label, k.length, ms.length, k.filter((r) => r.outcome === 'refused').length, k.filter((r) => r.outcome === 'failed').length, `${sec(ms[Math.floor(ms.length / 2)])} / ${sec(ms.at(-1))}`);
  }
  const calm = billable.filter((r) => r.outcome === 'served' && !windows.some((w) => r.t >= w.from && r.t < (w.to ?? Infinity))).map((r) => r.ms).sort((x, y) => x - y);
  if (calm.length) lines.push('', `Served outside every window: p50 ${(calm[Math.floor(calm.length / 2)] / 1000).toFixed(2)} s, p99 ${(calm[Math.floor(calm.length * 0.99)] / 1000).toFixed(2)} s, max ${(calm.at(-1) / 1000).toFixed(2)} s.`);
  const checkTable = (res, lc) => {
    lines.push('| check | result | detail |', '|---|---|---|');
    for (const c of res.checks) row(c.name, c.ok ? 'ok' : '**FAILED**', c.detail.replace(/\|/g, '/'));
    row('`npm run ledger:check`', lc.code === 0 ? 'ok (exit 0)' : `**exit ${lc.code}**`, lc.out.trim().split('\n').slice(-3).join('; ').replace(/\|/g, '/'));
  };
  lines.push('', '## Money', '', 'When the nodes had stopped (faults off, traffic over, reservations settled or leases run out):', '');
  checkTable(result, ledgerCheck);
  const f = result.figures;
  lines.push(
    '',
    `- Outcome rows in ledger_requests: ${f.outcomeRows}; settled charges ${f.settledSum} (served answers: ${f.servedCharged}).`,
    `- Failed requests that were nevertheless charged (a stream cut mid-way bills what was delivered; a reply settled before its last bytes were lost): ${f.failedCharged.reduce((a, [, n]) => a + n, 0)}, ${f.failedChargedSum} quota in all${f.failedCharged.length ? ` — ${f.failedCharged.map(([k, n]) => `${k}: ${n}`).join('; ')}` : ''}.`,
    `- Outcome rows of requests whose reply headers no client saw (in flight at the SIGKILL or a connection reset): ${f.unseenSettled} settled (${f.unseenCharge} quota), ${f.unseenReleased} released.`,
  );
  if (after) {
    lines.push('', `Then, as the next start of a node replays what its spool holds, ${after.restarted.join(', ')} started again and stopped; the same checks:`, '');
    checkTable(after.result, after.ledgerCheck);
  }
  lines.push(
    '',
    '## After the faults',
    '',
    `- Reservations open when the traffic stopped: ${leftoverNote(settle.leftover, records, t0)}.`,
    `- Reservations: ${settle.open === 0 ? `none open after ${(settle.ms / 1000).toFixed(0)} s` : `**${settle.open} still open after ${(settle.ms / 1000).toFixed(0)} s**`}.`,
    `- Spool folders at the end: ${spools.length ? spools.map((s) => `${s.node} ${s.files} files, ${s.bytes} B`).join('; ') : 'none created'}.`,
    `- SIGTERM at the end: ${stops.map((s) => `node ${s.name} exited in ${(s.ms / 1000).toFixed(1)} s (${s.exit})`).join('; ')}.`,
    `- Node logs: ${nodesLogs} (kept with BENCH_CHAOS_KEEP=1).`,
  );
  return lines.join('\n');
}
