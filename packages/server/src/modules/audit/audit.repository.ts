import { AUDIT_ACTIONS, AUDIT_FAMILIES, escapeAuditText, type AuditChange } from '@modelgate/shared';
import type { AuditEntry } from '@modelgate/shared/api';
import type { Db } from '../../db/client.js';
import type { AuditLogRow } from '../../db/schema.js';

export interface AuditFilter {
  /** A user id, or a username (resolved to its id; a name no user holds any more matches the recorded name). */
  actor?: string;
  /** One action, or a family (`user`): every action of it. */
  action?: string;
  targetType?: string;
  target?: string;
  success?: number;
  start?: number;
  end?: number;
}

function parseDetails(raw: string): { request: Record<string, unknown>; changes: AuditChange[]; changes_truncated: number; result?: unknown } {
  try {
    const d = JSON.parse(raw) as { request?: unknown; changes?: unknown; changes_truncated?: unknown; result?: unknown };
    return {
      request: d.request && typeof d.request === 'object' && !Array.isArray(d.request) ? (d.request as Record<string, unknown>) : {},
      changes: Array.isArray(d.changes) ? (d.changes as AuditChange[]) : [],
      changes_truncated: typeof d.changes_truncated === 'number' ? d.changes_truncated : 0,
      ...(d.result !== undefined ? { result: d.result } : {}),
    };
  } catch {
    return { request: {}, changes: [], changes_truncated: 0 };
  }
}

/** A stored row as the API answers it. */
export function auditView(r: AuditLogRow): AuditEntry {
  return {
    id: Number(r.id),
    created_at: Number(r.created_at),
    actor_id: Number(r.actor_id),
    actor_name: r.actor_name,
    actor_role: Number(r.actor_role),
    ip: r.ip,
    user_agent: r.user_agent,
    action: r.action,
    target_type: r.target_type,
    target_id: r.target_id,
    success: Number(r.success) === 1,
    message: r.message,
    ...parseDetails(r.details),
  };
}

/** The audit log's queries (GET /api/audit/): each filter maps onto an index of migration 0010. */
export class AuditRepository {
  /** `handle`: where the audit log is (LOG_SQL_DSN's database or the main one); `main`: the users. */
  constructor(
    private readonly handle: Db,
    private readonly main: Db = handle,
  ) {}

  /** The actor filter as a column condition: an id, a current username's id, or a recorded name. */
  private async actorCondition(actor: string): Promise<{ column: 'actor_id'; value: number } | { column: 'actor_name'; value: string }> {
    if (/^\d{1,15}$/.test(actor)) return { column: 'actor_id', value: Number(actor) };
    const user = await this.main.db.selectFrom('users').select('id').where('username', '=', actor).executeTakeFirst();
    // Recorded names are stored escaped (audit-entry.ts auditText): the raw name finds them too.
    return user ? { column: 'actor_id', value: Number(user.id) } : { column: 'actor_name', value: escapeAuditText(actor) };
  }

  async page(f: AuditFilter, offset: number, limit: number): Promise<{ items: AuditEntry[]; total: number }> {
    let q = this.handle.db.selectFrom('audit_logs');
    if (f.actor) {
      const c = await this.actorCondition(f.actor);
      q = c.column === 'actor_id' ? q.where('actor_id', '=', c.value) : q.where('actor_name', '=', c.value);
    }
    if (f.action) {
      const family = (AUDIT_FAMILIES as readonly string[]).includes(f.action) ? AUDIT_ACTIONS.filter((a) => a.startsWith(`${f.action}.`)) : null;
      q = family ? q.where('action', 'in', family) : q.where('action', '=', f.action);
    }
    if (f.targetType) q = q.where('target_type', '=', f.targetType);
    if (f.target) q = q.where('target_id', '=', escapeAuditText(f.target));
    if (f.success !== undefined) q = q.where('success', '=', f.success);
    if (f.start) q = q.where('created_at', '>=', f.start);
    if (f.end) q = q.where('created_at', '<=', f.end);
    const [rows, total] = await Promise.all([
      q.selectAll().orderBy('id', 'desc').limit(limit).offset(offset).execute(),
      q.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { items: rows.map(auditView), total: Number(total.n) };
  }
}
