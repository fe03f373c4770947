import { formatQuota, serverMessage, type Lang } from '@modelgate/shared';
import type { SharedStore } from '../../cluster/shared-store.js';
import type { Db } from '../../db/client.js';
import type { Logger } from '../../log/logger.js';
import type { OptionsService } from '../options/options.service.js';
import type { Mailer } from './mailer.js';
import { escapeHtml } from '../../http/html.js';

/** Spec §9: a quota alert mail at most once per two hours per user (on every node: the shared store). */
export const REMIND_INTERVAL_MS = 2 * 60 * 60 * 1000;
/** After a failed send, try again after this long rather than on the user's next request. */
export const REMIND_RETRY_MS = 10 * 60 * 1000;
/** Charges are collected this long, then checked with one query for the whole batch. */
const FLUSH_MS = 250;

export interface QuotaReminderDeps {
  db: Db;
  options: OptionsService;
  mailer: Pick<Mailer, 'configured' | 'send'>;
  store: SharedStore;
  log: Pick<Logger, 'info' | 'warn' | 'error'>;
}

type Kind = 'low' | 'depleted';

/**
 * "Quota almost depleted / depleted" mail (reference §5.4): sent when a relayed request's charge
 * takes a user from at least QuotaRemindThreshold to below it, or to zero. The relay only notes
 * the charge after settling (`afterSettle`, no I/O); the balances are read later, one query per
 * batch, and mail goes out in the background, so a slow or dead SMTP server never delays a request.
 */
export class QuotaReminder {
  private pending = new Map<number, number>();
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> = Promise.resolve();
  private closed = false;

  constructor(private readonly deps: QuotaReminderDeps) {}

  afterSettle(userId: number, settled: { charged: number; duplicate: boolean }): void {
    if (this.closed || settled.duplicate || settled.charged <= 0 || !this.deps.mailer.configured) return;
    this.pending.set(userId, (this.pending.get(userId) ?? 0) + settled.charged);
    if (this.timer) return;
    this.timer = setTimeout(() => void this.flush(), FLUSH_MS);
    this.timer.unref();
  }

  /** Checks what was noted so far; resolves when its mail has been sent (or has failed). */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    const batch = this.pending;
    this.pending = new Map();
    if (batch.size) {
      this.running = this.running
        .then(() => this.check(batch))
        .catch((err: unknown) => this.deps.log.error({ err }, 'quota reminder check failed'));
    }
    return this.running;
  }

  /** Stops noting charges and finishes what was noted (the app's close). */
  async close(): Promise<void> {
    this.closed = true;
    await this.flush();
  }

  private async check(batch: Map<number, number>): Promise<void> {
    const threshold = this.deps.options.num('QuotaRemindThreshold');
    const rows = await this.deps.db.db
      .selectFrom('users')
      .select(['id', 'email', 'quota'])
      .where('id', 'in', [...batch.keys()])
      .where('email', '<>', '')
      .where('deleted_at', 'is', null)
      .where('quota', '<', Math.max(threshold, 1))
      .execute();
    for (const row of rows) {
      const after = Number(row.quota);
      const before = after + (batch.get(row.id) ?? 0);
      const kind: Kind | null = after <= 0 ? 'depleted' : before >= threshold && after < threshold ? 'low' : null;
      if (kind) await this.remind(row.id, row.email, kind, after);
    }
  }

  private async remind(userId: number, email: string, kind: Kind, quota: number): Promise<void> {
    const key = `quota-remind:${userId}`;
    if (!(await this.deps.store.claim(key, kind, REMIND_INTERVAL_MS))) return;
    const { subject, html } = this.compose(kind, quota);
    try {
      await this.deps.mailer.send(email, subject, html);
      this.deps.log.info({ userId, kind }, 'quota reminder sent');
    } catch (err) {
      this.deps.log.warn({ err, userId, kind }, 'quota reminder mail failed; retrying later');
      await this.deps.store.set(key, 'failed', REMIND_RETRY_MS);
    }
  }

  /** The user's language is not known: the mail says it in both. */
  private compose(kind: Kind, quota: number): { subject: string; html: string } {
    const o = this.deps.options;
    const shown = formatQuota(quota, { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') });
    const title = (lang: Lang) => serverMessage(kind === 'low' ? 'QUOTA_ALMOST_DEPLETED' : 'QUOTA_DEPLETED', lang);
    const server = o.str('ServerAddress');
    const link = server ? `${server}/topup` : '';
    const paragraph = (lang: Lang) => {
      const body = serverMessage('QUOTA_REMIND_BODY', lang).replace('{quota}', shown);
      const [comma, colon] = lang === 'zh' ? ['，', '：'] : ['. ', ': '];
      const anchor = link ? `<br/>${serverMessage('QUOTA_REMIND_LINK', lang)}${colon}<a href="${escapeHtml(link)}">${escapeHtml(link)}</a>` : '';
      return `<p>${escapeHtml(title(lang))}${comma}${escapeHtml(body)}${anchor}</p>`;
    };
    return { subject: `${title('zh')} / ${title('en')}`, html: `${paragraph('zh')}${paragraph('en')}` };
  }
}
