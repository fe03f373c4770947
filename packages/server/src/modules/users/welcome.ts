import { LogType, quotaLogText, welcomeTokenName, type Lang } from '@modelgate/shared';
import type { Config } from '../../config/config.js';
import type { Db } from '../../db/client.js';
import type { UserRow } from '../../db/schema.js';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import { recordLog } from '../logs/log-writer.js';
import type { OptionsService } from '../options/options.service.js';
import type { TokensService } from '../tokens/tokens.service.js';
import type { UsersRepository } from './users.repository.js';

/** The part of the users service's dependencies a welcome uses. */
export interface WelcomeDeps {
  config: Pick<Config, 'generateDefaultToken'>;
  db: Db;
  users: UsersRepository;
  options: OptionsService;
  quotaLedger: QuotaLedger;
  tokensService: TokensService;
}

/** A quota as the system logs word it (`＄0.002000 额度`, or the raw number without currency display). */
function logText(d: WelcomeDeps, quota: number): string {
  const o = d.options;
  return quotaLogText(quota, { quotaPerUnit: o.num('QuotaPerUnit'), displayInCurrency: o.bool('DisplayInCurrencyEnabled') });
}

/**
 * What every new user gets, however they signed up: the new-user quota, invite rewards, a first
 * token named in the language of the sign-up request.
 */
export async function welcomeNewUser(d: WelcomeDeps, id: number, username: string, inviter: UserRow | undefined, lang: Lang): Promise<void> {
  const quotaForNewUser = d.options.num('QuotaForNewUser');
  if (quotaForNewUser > 0) {
    await d.quotaLedger.move({ kind: 'signup', userId: id, quota: quotaForNewUser });
    await recordLog(d.db, { userId: id, username, type: LogType.System, content: `新用户注册赠送 ${logText(d, quotaForNewUser)}` });
  }
  if (inviter) await rewardInvitation(d, id, username, inviter);
  if (d.config.generateDefaultToken) {
    const row = (await d.users.findActiveById(id))!;
    await d.tokensService.create(
      { id, username, role: row.role, status: row.status, group: row.group, viaAccessToken: false, row },
      { name: welcomeTokenName(username, lang), unlimited_quota: true, remain_quota: 0 },
    );
  }
}

async function rewardInvitation(d: WelcomeDeps, inviteeId: number, inviteeName: string, inviter: UserRow): Promise<void> {
  const o = d.options;
  const forInvitee = o.num('QuotaForInvitee');
  const forInviter = o.num('QuotaForInviter');
  if (forInvitee > 0) {
    await d.quotaLedger.move({ kind: 'invitee', userId: inviteeId, quota: forInvitee });
    await recordLog(d.db, { userId: inviteeId, username: inviteeName, type: LogType.System, content: `使用邀请码赠送 ${logText(d, forInvitee)}` });
  }
  await d.db.db
    .updateTable('users')
    .set((eb) => ({
      aff_count: eb('aff_count', '+', 1),
      aff_history: eb('aff_history', '+', forInviter),
    }))
    .where('id', '=', inviter.id)
    .execute();
  if (forInviter > 0) {
    await d.quotaLedger.move({ kind: 'inviter', userId: inviter.id, aff: forInviter, ref: `invite:${inviteeId}` });
    await recordLog(d.db, { userId: inviter.id, username: inviter.username, type: LogType.System, content: `邀请用户赠送 ${logText(d, forInviter)}` });
  }
}
