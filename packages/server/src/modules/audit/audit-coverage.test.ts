import { AUDIT_ACTIONS, isAuditAction } from '@modelgate/shared';
import { apiRoutes, type RouteContract } from '@modelgate/shared/api';
import { describe, expect, it } from 'vitest';
import { actionOf, targetIdsOf } from './audit-entry.js';
import { auditOf } from './audit-hooks.js';
import { canSnapshot } from './audit-snapshots.js';

const routes = Object.entries(apiRoutes as Record<string, RouteContract>);
/** Admin and root routes that can change something: every one must say what the audit log records. */
const writes = routes.filter(([key, c]) => (c.auth === 'admin' || c.auth === 'root') && !/^(GET|HEAD|OPTIONS) /.test(key));

describe('audit coverage of the route contracts', () => {
  it('finds the admin and root writes (the enumeration itself works)', () => {
    expect(writes.map(([k]) => k)).toEqual(expect.arrayContaining(['PUT /api/option/', 'POST /api/channel/', 'PUT /api/user/', 'POST /api/redemption/', 'DELETE /api/log/']));
  });

  it.each(writes)('%s declares an audit entry, or why it records none', (_key, c) => {
    expect(c.audit, 'add `audit: {action, target, …}` to the contract, or `audit: {skip: "<why it changes nothing>"}`').toBeDefined();
    if (c.audit && 'skip' in c.audit) expect(c.audit.skip.trim().length).toBeGreaterThan(10);
  });

  it.each(routes.filter(([, c]) => auditOf(c)))('%s: its declaration points at real request fields and targets', (_key, c) => {
    const audit = auditOf(c)!;
    expect(isAuditAction(audit.action)).toBe(true);
    for (const a of Object.values(audit.actionBy?.actions ?? {})) expect(isAuditAction(a)).toBe(true);
    const fields = [typeof audit.targetId === 'string' ? audit.targetId : null, audit.actionBy?.field ?? null].filter((f): f is NonNullable<typeof f> => f !== null);
    for (const field of fields) {
      const part = field.slice(0, field.indexOf('.')) as 'params' | 'query' | 'body';
      const schema = c[part === 'query' ? 'querystring' : part] as { shape?: Record<string, unknown> } | undefined;
      expect(schema?.shape, `${field}: the contract has no ${part} schema`).toBeDefined();
      expect(Object.keys(schema!.shape!), `${field} is not a field of the ${part}`).toContain(field.slice(field.indexOf('.') + 1));
    }
    if (audit.snapshot) expect(canSnapshot(audit.target), `no snapshot loader for ${audit.target}`).toBe(true);
    // Redemption codes are the money: an answer that carries them is never recorded.
    if (audit.action === 'redemption.create') expect(audit.result).toBeFalsy();
  });

  it('records GET routes nowhere (reads are not audited)', () => {
    expect(routes.filter(([k, c]) => k.startsWith('GET ') && auditOf(c)).map(([k]) => k)).toEqual([]);
  });

  it('every audit action but the reserved session revocation is declared by a route', () => {
    const declared = new Set<string>();
    for (const [, c] of routes) {
      const a = auditOf(c);
      if (!a) continue;
      declared.add(a.action);
      for (const x of Object.values(a.actionBy?.actions ?? {})) declared.add(x);
    }
    // `session.revoke` names the revocation of other users' sessions; no admin route does that yet.
    // `topup.refund` and `topup.dispute` are recorded by the Stripe webhook, which no admin calls.
    expect(AUDIT_ACTIONS.filter((a) => !declared.has(a))).toEqual(['session.revoke', 'topup.refund', 'topup.dispute']);
  });

  it('reads the action and target from the request as declared', () => {
    const manage = auditOf(apiRoutes['POST /api/user/manage'])!;
    expect(actionOf(manage, { body: { id: 7, action: 'promote' } })).toBe('user.promote');
    expect(actionOf(manage, { body: { id: 7, action: 'nonsense' } })).toBe('user.update');
    expect(targetIdsOf(manage, { body: { id: 7 } })).toEqual(['7']);
    const status = auditOf(apiRoutes['PUT /api/redemption/'])!;
    expect(actionOf(status, { query: { status_only: true }, body: { id: 1 } })).toBe('redemption.status');
    expect(actionOf(status, { query: { status_only: false }, body: { id: 1 } })).toBe('redemption.update');
    expect(targetIdsOf(auditOf(apiRoutes['POST /api/channel/batch'])!, { body: { ids: [3, 4] } })).toEqual(['3', '4']);
    expect(targetIdsOf(auditOf(apiRoutes['POST /api/option/rest_model_ratio'])!, {})).toEqual(['ModelRatio', 'CompletionRatio', 'ModelPrice', 'CacheRatio', 'CreateCacheRatio']);
  });
});
