#!/usr/bin/env node
// Production dependency audit for CI (.ci/run): `npm audit --omit=dev --json`, failing on any advisory
// of severity moderate or higher that .ci/audit-allow.json does not list with a reason and a review
// date. When the registry's audit endpoint cannot be reached (a mirror without it, no network), the
// audit has not run: that is printed plainly and the step passes, since nothing was judged.
//
//   node scripts/audit.mjs [--allow FILE] [--report FILE]
//
// --report reads a saved `npm audit --json` output instead of running npm (tests, offline review).
// Exit codes: 0 clean, only allowed advisories, or audit not run; 1 an advisory needs review;
// 2 the allow list is malformed or npm's output cannot be understood.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '..');
const SEVERE = new Set(['moderate', 'high', 'critical']);
/** An allow-list entry older than this is flagged for another look (a warning, not a failure). */
const REVIEW_AFTER_DAYS = 180;

function arg(name, fallback) {
  const i = process.argv.indexOf(name);
  return i === -1 ? fallback : process.argv[i + 1];
}

function stop(code, lines) {
  for (const line of [].concat(lines)) (code === 0 ? console.log : console.error)(line);
  process.exit(code);
}

/** The allow list: `{ "advisories": [{ "id", "package", "reason", "reviewed": "YYYY-MM-DD" }] }`. */
function readAllowList(file) {
  let doc;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (err) {
    stop(2, `audit: cannot read the allow list ${file}: ${err.message}`);
  }
  const entries = doc?.advisories;
  if (!Array.isArray(entries)) stop(2, `audit: ${file} must hold {"advisories": [...]}`);
  entries.forEach((e, i) => {
    const missing = ['id', 'package', 'reason', 'reviewed'].filter((k) => typeof e?.[k] !== 'string' || !e[k].trim());
    if (missing.length) stop(2, `audit: ${file} entry ${i} lacks ${missing.join(', ')}`);
    if (!/^\d{4}-\d{2}-\d{2}$/.test(e.reviewed) || Number.isNaN(Date.parse(e.reviewed))) stop(2, `audit: ${file} entry ${i} (${e.id}): reviewed must be a date YYYY-MM-DD`);
  });
  return entries;
}

/** npm's JSON output, from a file or a fresh run; `ran` is false when npm itself printed nothing usable. */
function readReport() {
  const saved = arg('--report');
  if (saved) return { text: fs.readFileSync(saved, 'utf8'), stderr: '' };
  const r = spawnSync('npm', ['audit', '--omit=dev', '--json'], { cwd: root, encoding: 'utf8', timeout: 180_000, maxBuffer: 64 * 1024 * 1024 });
  if (r.error) return { text: '', stderr: `npm could not be run: ${r.error.message}` };
  return { text: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** Transport failures: the registry (or its audit endpoint) was not reached. */
const NETWORK = /\b(ENOTFOUND|EAI_AGAIN|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|EHOSTUNREACH|ENETUNREACH|ERR_SOCKET_TIMEOUT|FETCH_ERROR|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_GET_ISSUER_CERT_LOCALLY)\b/;

/**
 * Why the audit endpoint gave no report, if that is what happened: an HTTP error status from it (a
 * mirror that does not serve it answers 404 or 405), or a network failure. Any other npm error (no
 * lockfile, a broken install) is not this case and fails the step.
 */
function unreachable(report, stderr) {
  if (report && typeof report === 'object' && !report.vulnerabilities) {
    const said = [report.message, report.error?.summary, report.error?.detail].filter((v) => typeof v === 'string' && v).join(' ');
    if (typeof report.statusCode === 'number') return `HTTP ${report.statusCode}: ${said || 'the audit endpoint answered with an error'}`;
    const code = report.code ?? report.error?.code;
    if (NETWORK.test(String(code ?? '')) || NETWORK.test(said)) return [code, said].filter(Boolean).join(': ');
    return undefined;
  }
  if (!report) {
    const m = NETWORK.exec(stderr) ?? /audit endpoint returned an error/.exec(stderr);
    if (m) return stderr.split('\n').find((line) => line.includes(m[0]))?.trim() ?? m[0];
  }
  return undefined;
}

/** Every advisory of the report, once each: id (GHSA), npm's numeric id, package, severity, title, url, range. */
function advisories(report) {
  const seen = new Map();
  for (const vuln of Object.values(report.vulnerabilities ?? {})) {
    for (const via of vuln.via ?? []) {
      if (typeof via !== 'object' || via === null) continue;
      const ghsa = /GHSA-[\w-]+$/.exec(via.url ?? '')?.[0];
      const key = ghsa ?? String(via.source);
      if (!seen.has(key)) seen.set(key, { id: key, source: String(via.source ?? ''), package: via.name ?? vuln.name, severity: via.severity ?? vuln.severity, title: via.title ?? '', url: via.url ?? '', range: via.range ?? '' });
    }
  }
  return [...seen.values()];
}

const allowFile = path.resolve(root, arg('--allow', '.ci/audit-allow.json'));
const allow = readAllowList(allowFile);
const { text, stderr } = readReport();
let report;
try {
  report = text.trim() ? JSON.parse(text) : undefined;
} catch {
  report = undefined;
}
const why = unreachable(report, stderr);
if (why !== undefined) {
  stop(0, [
    'AUDIT NOT RUN: the registry\'s audit endpoint could not be reached, so no dependency was checked.',
    `  reason: ${why}`,
    '  (npm audit needs a registry that serves /-/npm/v1/security/advisories/bulk; this step passes only because nothing could be judged)',
  ]);
}
if (!report || typeof report !== 'object' || typeof report.vulnerabilities !== 'object') {
  stop(2, ['audit: npm audit gave no report that can be read', `  stdout: ${text.slice(0, 500)}`, `  stderr: ${stderr.slice(0, 500)}`]);
}

const found = advisories(report);
const severe = found.filter((a) => SEVERE.has(a.severity));
const isAllowed = (a) => allow.some((e) => (e.id === a.id || e.id === a.source) && e.package === a.package);
const open = severe.filter((a) => !isAllowed(a));
const lines = [`audit: ${found.length} advisories in production dependencies, ${severe.length} moderate or higher, ${severe.length - open.length} allowed by ${path.relative(root, allowFile)}`];
for (const a of severe) lines.push(`  ${isAllowed(a) ? 'allowed ' : 'REVIEW  '} ${a.severity.padEnd(8)} ${a.package} ${a.range} ${a.id} ${a.title}${a.url ? ` (${a.url})` : ''}`);
const now = Date.now();
for (const e of allow) {
  if (!found.some((a) => (a.id === e.id || a.source === e.id) && a.package === e.package)) lines.push(`  note: allow-list entry ${e.id} (${e.package}) matches no current advisory: remove it`);
  else if ((now - Date.parse(e.reviewed)) / 86_400_000 > REVIEW_AFTER_DAYS) lines.push(`  note: allow-list entry ${e.id} (${e.package}) was last reviewed ${e.reviewed}: review it again`);
}
if (open.length) {
  lines.push(`audit: ${open.length} advisory(ies) need review: upgrade, or add them to ${path.relative(root, allowFile)} with id, package, reason and reviewed date`);
  stop(1, lines);
}
stop(0, lines);
