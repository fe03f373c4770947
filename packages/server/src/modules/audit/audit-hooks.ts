import type { AuditTarget } from '@modelgate/shared';
import { apiRoutes, type RouteAudit, type RouteContract } from '@modelgate/shared/api';
import type { FastifyInstance, FastifyReply, FastifyRequest, onSendAsyncHookHandler, preHandlerAsyncHookHandler } from 'fastify';
import type { AppContext } from '../../context.js';
import { nowSec } from '../../http/reply.js';
import { actionOf, auditText, detailsJson, diff, requestFields, resultOf, TARGET_ID_MAX, targetIdsOf, type RequestParts, type Snapshot } from './audit-entry.js';
import { loadSnapshot, type SnapshotDeps } from './audit-snapshots.js';
import { AuditWriter } from './audit-writer.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'db' | 'options'>;

/** The target's state before the handler ran, per request (only requests of audited routes). */
const before = new WeakMap<FastifyRequest, Snapshot>();

/** The route's audit declaration, when it records one (not `{skip}`). */
export function auditOf(contract: RouteContract | undefined): RouteAudit | null {
  const a = contract?.audit;
  return a && 'action' in a ? a : null;
}

function parts(req: FastifyRequest): RequestParts {
  return { params: req.params, query: req.query, body: req.body };
}

/** `{success, message, data}` of an `/api` answer as sent (a JSON string), or null. */
function envelopeOf(payload: unknown): { success?: unknown; message?: unknown; data?: unknown } | null {
  if (typeof payload !== 'string') return null;
  try {
    const v = JSON.parse(payload) as unknown;
    return v && typeof v === 'object' ? (v as { success?: unknown; message?: unknown; data?: unknown }) : null;
  } catch {
    return null;
  }
}

/**
 * The audit log (docs/security.md#audit-log): every route whose contract declares `audit`
 * (shared/api contract.ts) gets two route hooks — no cost on any other route. Before the handler
 * (after the role guard and validation) the target's state is read when the route declares
 * `snapshot`; when the answer is sent, the state after, and the entry is queued for the writer
 * with the caller, IP, user agent, masked request fields and changes, and the outcome. Calls
 * refused by the role guard have no actor and are not recorded (they changed nothing); calls that
 * failed later (validation, a refused change) are recorded as failures. Install before the routes.
 */
export function installAuditLog(app: FastifyInstance, ctx: Deps): AuditWriter {
  const writer = new AuditWriter(ctx.db, app.log);
  const deps: SnapshotDeps = { db: ctx.db, options: ctx.options };

  const snapshot = (req: FastifyRequest, target: AuditTarget, ids: string[]): Promise<Snapshot> =>
    loadSnapshot(deps, target, ids).catch((err: unknown) => {
      req.log.error({ err, target, ids }, 'audit log: could not read the target');
      return null;
    });

  const record = async (audit: RouteAudit, req: FastifyRequest, reply: FastifyReply, payload: unknown): Promise<void> => {
    const actor = req.authUser;
    if (!actor) return;
    const p = parts(req);
    const env = envelopeOf(payload);
    const success = reply.statusCode < 400 && env?.success === true;
    const ids = targetIdsOf(audit, p);
    let changes = { changes: [] as ReturnType<typeof diff>['changes'], truncated: 0 };
    if (audit.snapshot && success && before.has(req)) {
      changes = diff(audit.target, before.get(req) ?? null, await snapshot(req, audit.target, ids));
    }
    const details = detailsJson({
      request: requestFields(audit.target, p),
      changes: changes.changes,
      ...(changes.truncated ? { changes_truncated: changes.truncated } : {}),
      ...(audit.result && success ? { result: resultOf(env?.data) } : {}),
    });
    writer.write({
      created_at: nowSec(),
      actor_id: actor.id,
      // Every string escaped (audit-entry.ts auditText): an imported username or a header's
      // Latin-1 bytes can carry bidi overrides and C1 controls.
      actor_name: auditText(actor.username, 64),
      actor_role: actor.role,
      ip: auditText(req.ip ?? '', 64),
      user_agent: auditText(String(req.headers['user-agent'] ?? ''), 255),
      action: actionOf(audit, p),
      target_type: audit.target,
      target_id: auditText(ids.join(','), TARGET_ID_MAX),
      success: success ? 1 : 0,
      message: success ? '' : auditText(typeof env?.message === 'string' ? env.message : `HTTP ${reply.statusCode}`, 500),
      details,
    });
  };

  app.addHook('onRoute', (route) => {
    const method = [route.method].flat()[0];
    const audit = auditOf((apiRoutes as Record<string, RouteContract>)[`${method} ${route.url}`]);
    if (!audit) return;
    if (audit.snapshot) {
      const pre: preHandlerAsyncHookHandler = async (req) => {
        if (req.authUser) before.set(req, await snapshot(req, audit.target, targetIdsOf(audit, parts(req))));
      };
      route.preHandler = [...[route.preHandler ?? []].flat(), pre] as preHandlerAsyncHookHandler[];
    }
    const onSend: onSendAsyncHookHandler = async (req, reply, payload) => {
      try {
        await record(audit, req, reply, payload);
      } catch (err) {
        req.log.error({ err, route: route.url }, 'audit log: could not record the call');
      }
      return payload;
    };
    route.onSend = [...[route.onSend ?? []].flat(), onSend] as onSendAsyncHookHandler[];
  });

  // Registered before the routes, so it runs after the graceful close has waited for the handlers
  // in flight (fastify runs onClose hooks last-registered first): their entries are queued by then.
  app.addHook('onClose', async () => {
    await new Promise((resolve) => setImmediate(resolve));
    await writer.flush();
  });
  return writer;
}
