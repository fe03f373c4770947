import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

/**
 * scripts/audit.mjs, the production dependency audit CI runs after `npm ci`: judged on saved
 * `npm audit --json` outputs (the registry's audit endpoint is not reachable from tests).
 */
const root = fileURLToPath(new URL('../../../../', import.meta.url));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'audit-script-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

let n = 0;
function write(value: unknown): string {
  const file = path.join(dir, `f${++n}.json`);
  fs.writeFileSync(file, typeof value === 'string' ? value : JSON.stringify(value));
  return file;
}

function audit(report: unknown, allow: unknown = { advisories: [] }): { code: number | null; out: string } {
  const r = spawnSync(process.execPath, [path.join(root, 'scripts/audit.mjs'), '--report', write(report), '--allow', write(allow)], { encoding: 'utf8' });
  return { code: r.status, out: `${r.stdout}${r.stderr}` };
}

const advisory = (pkg: string, ghsa: string, severity: string, source: number) => ({
  name: pkg,
  severity,
  isDirect: false,
  via: [{ source, name: pkg, dependency: pkg, title: `${pkg} does something bad`, url: `https://github.com/advisories/${ghsa}`, severity, range: '<1.2.3' }],
  effects: ['fastify'],
  range: '<1.2.3',
  nodes: [`node_modules/${pkg}`],
  fixAvailable: true,
});
const report = (...vulns: Array<ReturnType<typeof advisory>>) => ({
  auditReportVersion: 2,
  // A package affected only through another one names it as a string: not an advisory of its own.
  vulnerabilities: Object.fromEntries([...vulns.map((v) => [v.name, v]), ['fastify', { name: 'fastify', severity: 'high', via: vulns.map((v) => v.name), effects: [], range: '*', nodes: [], fixAvailable: true }]]),
  metadata: { vulnerabilities: {} },
});
const entry = (id: string, pkg: string, reviewed = new Date().toISOString().slice(0, 10)) => ({ id, package: pkg, reason: 'only reachable through a code path ModelGate never calls', reviewed });

describe('scripts/audit.mjs', () => {
  it('passes a clean report and one with low-severity advisories only', () => {
    expect(audit({ auditReportVersion: 2, vulnerabilities: {}, metadata: {} })).toMatchObject({ code: 0, out: expect.stringContaining('0 advisories in production dependencies, 0 moderate or higher') });
    const low = audit(report(advisory('cookie', 'GHSA-test-low0-0001', 'low', 1)));
    expect(low.code).toBe(0);
    expect(low.out).toContain('1 advisories in production dependencies, 0 moderate or higher');
  });

  it('fails on a moderate, high or critical advisory nobody reviewed, naming it', () => {
    for (const severity of ['moderate', 'high', 'critical']) {
      const r = audit(report(advisory('undici', 'GHSA-test-sev0-0002', severity, 2)));
      expect(r.code).toBe(1);
      expect(r.out).toContain(`REVIEW   ${severity.padEnd(8)} undici <1.2.3 GHSA-test-sev0-0002 undici does something bad`);
      expect(r.out).toContain('1 advisory(ies) need review');
    }
  });

  it('passes an advisory the allow list names by GHSA id or npm number with its package, and only then', () => {
    const two = report(advisory('undici', 'GHSA-test-two0-0003', 'high', 3), advisory('ws', 'GHSA-test-two0-0004', 'moderate', 4));
    expect(audit(two, { advisories: [entry('GHSA-test-two0-0003', 'undici'), entry('4', 'ws')] })).toMatchObject({ code: 0, out: expect.stringContaining('2 moderate or higher, 2 allowed') });
    // The same id under another package does not count.
    const wrong = audit(two, { advisories: [entry('GHSA-test-two0-0003', 'undici'), entry('GHSA-test-two0-0004', 'pg')] });
    expect(wrong.code).toBe(1);
    expect(wrong.out).toContain('REVIEW   moderate ws');
    expect(wrong.out).toContain('allow-list entry GHSA-test-two0-0004 (pg) matches no current advisory: remove it');
  });

  it('asks for another look at an old review, without failing', () => {
    const r = audit(report(advisory('undici', 'GHSA-test-old0-0005', 'high', 5)), { advisories: [entry('GHSA-test-old0-0005', 'undici', '2020-01-01')] });
    expect(r.code).toBe(0);
    expect(r.out).toContain('was last reviewed 2020-01-01: review it again');
  });

  it('says plainly that the audit did not run when the endpoint is unreachable, and passes only then', () => {
    const notServed = audit({ message: '405 Method Not Allowed - POST https://registry.example/-/npm/v1/security/advisories/bulk', method: 'POST', statusCode: 405, body: '', error: { summary: '', detail: '' } });
    expect(notServed.code).toBe(0);
    expect(notServed.out).toContain('AUDIT NOT RUN: the registry\'s audit endpoint could not be reached, so no dependency was checked.');
    expect(notServed.out).toContain('reason: HTTP 405');
    const offline = audit({ error: { code: 'ENOTFOUND', summary: 'request to https://registry.example failed, reason: getaddrinfo ENOTFOUND registry.example', detail: '' } });
    expect(offline).toMatchObject({ code: 0, out: expect.stringContaining('AUDIT NOT RUN') });
    // Any other npm failure (here: no lockfile) is not "unreachable": the step fails.
    const noLock = audit({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.', detail: '' } });
    expect(noLock.code).toBe(2);
    expect(audit('this is not json').code).toBe(2);
  });

  it('refuses a malformed allow list', () => {
    const clean = { auditReportVersion: 2, vulnerabilities: {}, metadata: {} };
    expect(audit(clean, [])).toMatchObject({ code: 2, out: expect.stringContaining('must hold {"advisories": [...]}') });
    expect(audit(clean, { advisories: [{ id: 'GHSA-x', package: 'ws', reviewed: '2026-01-01' }] })).toMatchObject({ code: 2, out: expect.stringContaining('entry 0 lacks reason') });
    expect(audit(clean, { advisories: [{ ...entry('GHSA-x', 'ws'), reviewed: 'last week' }] })).toMatchObject({ code: 2, out: expect.stringContaining('reviewed must be a date YYYY-MM-DD') });
  });

  it('ships a well-formed allow list', () => {
    const r = spawnSync(process.execPath, [path.join(root, 'scripts/audit.mjs'), '--report', write({ auditReportVersion: 2, vulnerabilities: {}, metadata: {} })], { encoding: 'utf8', cwd: root });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('allowed by .ci/audit-allow.json');
  });
});
