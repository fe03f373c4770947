import { LogType, Role, serverMessage, type Lang } from '@modelgate/shared';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../log/logger.js';
import { recordLog } from '../logs/log-writer.js';
import type { Mailer } from './mailer.js';
import { escapeHtml } from '../../http/html.js';

/** A channel switched off or on by ModelGate itself (never by an admin's own action). */
export interface ChannelStatusEvent {
  id: number;
  status: 'disabled' | 'enabled';
  /** Why it was switched off (the upstream's error, a slow test, an empty balance); '' when enabled. */
  reason: string;
}

export interface ChannelNoticeDeps {
  db: Db;
  mailer: Pick<Mailer, 'configured' | 'send'>;
  log: Pick<Logger, 'warn' | 'error'>;
}

function text(lang: Lang, e: ChannelStatusEvent, name: string): string {
  const vars: Record<string, string> = { name, id: String(e.id), reason: e.reason };
  return serverMessage(e.status === 'disabled' ? 'CHANNEL_DISABLED_NOTICE' : 'CHANNEL_ENABLED_NOTICE', lang).replace(/\{(\w+)\}/g, (m, k: string) => vars[k] ?? m);
}

/**
 * Tells the super admin when ModelGate switches a channel off (auto-disable: reference §3.6) or
 * back on (a passing test with AutomaticEnableChannelEnabled): a system entry in root's usage log,
 * seen in the log screen, and a mail to root's address when SMTP is set up. In the background:
 * the request or test that caused it never waits for it, and a failure is only logged.
 */
export class ChannelNotice {
  private running: Promise<void> = Promise.resolve();

  constructor(private readonly deps: ChannelNoticeDeps) {}

  notify(e: ChannelStatusEvent): void {
    this.running = this.running.then(() => this.send(e)).catch((err: unknown) => this.deps.log.error({ err, channel: e.id }, 'channel status notice failed'));
  }

  /** Resolves once every notice noted so far is written and sent (tests, shutdown). */
  settled(): Promise<void> {
    return this.running;
  }

  private async send(e: ChannelStatusEvent): Promise<void> {
    const db = this.deps.db.db;
    const channel = await db.selectFrom('channels').select(['name']).where('id', '=', e.id).executeTakeFirst();
    const root = await db.selectFrom('users').select(['id', 'username', 'email']).where('role', '=', Role.Root).where('deleted_at', 'is', null).orderBy('id').executeTakeFirst();
    if (!root) return;
    const name = channel?.name ?? '';
    await recordLog(this.deps.db, { userId: root.id, username: root.username, type: LogType.System, content: text('zh', e, name) });
    if (!this.deps.mailer.configured || !root.email) return;
    const zh = text('zh', e, name);
    const en = text('en', e, name);
    await this.deps.mailer.send(root.email, zh, `<p>${escapeHtml(zh)}</p><p>${escapeHtml(en)}</p>`).catch((err: unknown) => {
      this.deps.log.warn({ err, channel: e.id }, 'channel status mail could not be sent');
    });
  }
}
