import { serialisePeriodLimits, TOKEN_KEY_LENGTH, TOKEN_NAME_MAX_LENGTH, TokenStatus, type PeriodLimits } from '@modelgate/shared';
import type { QuotaLedger } from '../../ledger/quota-ledger.js';
import type { OptionsService } from '../options/options.service.js';
import type { TokensRepository } from './tokens.repository.js';
import type { TokenRow } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { AppError } from '../../http/errors.js';
import { parseIpList } from '../../http/ip-list.js';
import { nowSec } from '../../http/reply.js';
import { randomAlnum } from '../users/password.js';
import { effectiveTokenStatus } from './token-view.js';

export interface TokenInput {
  name?: string;
  remain_quota?: number;
  expired_time?: number;
  unlimited_quota?: boolean;
  model_limits_enabled?: boolean;
  model_limits?: string;
  allow_ips?: string;
  group?: string;
  rpm_limit?: number;
  tpm_limit?: number;
  /** Caps per window, validated by the route's schema (shared/api/plans.ts). */
  period_limits?: PeriodLimits;
}

const MAX_BATCH = 100;

function normaliseLimits(v: string | undefined): string {
  return (v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
    .join(',');
}

/**
 * IPs and CIDR ranges separated by newlines, commas or spaces, stored one per line (the console's
 * format); an entry that is neither is refused by name instead of silently never matching.
 */
function normaliseAllowIps(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const { entries, invalid } = parseIpList(v);
  if (invalid.length) throw new AppError('TOKEN_ALLOW_IPS_INVALID', 200, invalid.join(', '));
  return entries.join('\n');
}

export class TokensService {
  constructor(
    private readonly deps: {
      tokens: TokensRepository;
      options: Pick<OptionsService, 'usableGroups'>;
      quotaLedger: Pick<QuotaLedger, 'setTokenRemain'>;
    },
  ) {}

  private get repo() {
    return this.deps.tokens;
  }

  private validate(me: AuthUser, input: TokenInput, creating: boolean): void {
    const name = input.name ?? '';
    if (creating && !name.trim()) throw new AppError('TOKEN_NAME_REQUIRED');
    if ([...name].length > TOKEN_NAME_MAX_LENGTH) throw new AppError('TOKEN_NAME_TOO_LONG');
    if (input.remain_quota !== undefined && input.remain_quota < 0) throw new AppError('QUOTA_NEGATIVE');
    if (input.expired_time !== undefined && input.expired_time !== -1 && input.expired_time <= nowSec() && creating) {
      throw new AppError('TOKEN_EXPIRY_IN_PAST');
    }
    if (input.group && !Object.hasOwn(this.deps.options.usableGroups(me.group), input.group)) {
      throw new AppError('TOKEN_GROUP_UNAVAILABLE', 200, input.group);
    }
    normaliseAllowIps(input.allow_ips);
  }

  /** Creates `count` tokens; extra ones get the name plus `-` and a 6-character suffix (spec §5). */
  async create(me: AuthUser, input: TokenInput, count = 1): Promise<TokenRow[]> {
    if (!Number.isInteger(count) || count < 1 || count > MAX_BATCH) throw new AppError('TOKEN_COUNT_INVALID');
    this.validate(me, input, true);
    const now = nowSec();
    const created: TokenRow[] = [];
    for (let i = 0; i < count; i++) {
      const name = i === 0 ? input.name!.trim() : `${input.name!.trim()}-${randomAlnum(6)}`;
      const row = {
        user_id: me.id,
        key: randomAlnum(TOKEN_KEY_LENGTH),
        status: TokenStatus.Enabled,
        name: [...name].slice(0, TOKEN_NAME_MAX_LENGTH).join(''),
        created_time: now,
        accessed_time: now,
        expired_time: input.expired_time ?? -1,
        remain_quota: 0,
        unlimited_quota: input.unlimited_quota ? 1 : 0,
        model_limits_enabled: input.model_limits_enabled ? 1 : 0,
        model_limits: normaliseLimits(input.model_limits),
        allow_ips: normaliseAllowIps(input.allow_ips) ?? '',
        used_quota: 0,
        group: input.group ?? '',
        rpm_limit: input.rpm_limit ?? 0,
        tpm_limit: input.tpm_limit ?? 0,
        period_limits: serialisePeriodLimits(input.period_limits ?? {}),
      };
      const id = await this.repo.insert(row);
      // The limit is a ledger movement (docs/ledger.md), so reconciliation can account for it.
      if (input.remain_quota) await this.deps.quotaLedger.setTokenRemain(id, input.remain_quota);
      created.push({ ...row, remain_quota: input.remain_quota ?? 0, id, deleted_at: null });
    }
    return created;
  }

  async get(me: AuthUser, id: number): Promise<TokenRow> {
    const t = await this.repo.get(me.id, id);
    if (!t) throw new AppError('TOKEN_NOT_FOUND');
    return t;
  }

  /** Toggle (`status_only`): an expired or exhausted token stays off until expiry or quota changes. */
  async setStatus(me: AuthUser, id: number, status: number): Promise<TokenRow> {
    if (status !== TokenStatus.Enabled && status !== TokenStatus.Disabled) throw new AppError('TOKEN_STATUS_INVALID');
    const t = await this.get(me, id);
    if (status === TokenStatus.Enabled) this.assertUsable(t);
    await this.repo.update(me.id, id, { status });
    return { ...t, status };
  }

  private assertUsable(t: Pick<TokenRow, 'expired_time' | 'unlimited_quota' | 'remain_quota'>): void {
    const now = nowSec();
    if (t.expired_time !== -1 && Number(t.expired_time) <= now) throw new AppError('TOKEN_EXPIRED_CANNOT_ENABLE');
    if (!t.unlimited_quota && Number(t.remain_quota) <= 0) throw new AppError('TOKEN_EXHAUSTED_CANNOT_ENABLE');
  }

  async update(me: AuthUser, id: number, input: TokenInput): Promise<TokenRow> {
    const t = await this.get(me, id);
    this.validate(me, input, false);
    const next = {
      name: input.name !== undefined ? input.name.trim() || t.name : t.name,
      expired_time: input.expired_time ?? Number(t.expired_time),
      remain_quota: input.remain_quota ?? Number(t.remain_quota),
      unlimited_quota: input.unlimited_quota === undefined ? t.unlimited_quota : input.unlimited_quota ? 1 : 0,
      model_limits_enabled: input.model_limits_enabled === undefined ? t.model_limits_enabled : input.model_limits_enabled ? 1 : 0,
      model_limits: input.model_limits === undefined ? t.model_limits : normaliseLimits(input.model_limits),
      allow_ips: normaliseAllowIps(input.allow_ips) ?? t.allow_ips,
      group: input.group ?? t.group,
      rpm_limit: input.rpm_limit ?? Number(t.rpm_limit),
      tpm_limit: input.tpm_limit ?? Number(t.tpm_limit),
      period_limits: input.period_limits === undefined ? (t.period_limits ?? '') : serialisePeriodLimits(input.period_limits),
      status: t.status,
    };
    // A token stored as expired or exhausted comes back once the edit fixes what stopped it.
    if (next.status === TokenStatus.Expired || next.status === TokenStatus.Exhausted) {
      const probe = { ...next, status: TokenStatus.Enabled };
      if (effectiveTokenStatus(probe, nowSec()) === TokenStatus.Enabled) next.status = TokenStatus.Enabled;
    }
    // The status is written only when this edit changes it, so a status the relay stored meanwhile
    // (exhausted, expired) is not overwritten with the one read above; the limit is a ledger movement.
    const { remain_quota: remain, status, ...rest } = next;
    await this.repo.update(me.id, id, status === t.status ? rest : { ...rest, status });
    if (remain !== Number(t.remain_quota)) await this.deps.quotaLedger.setTokenRemain(id, remain);
    return { ...t, ...next };
  }

  async remove(me: AuthUser, id: number): Promise<void> {
    if (!(await this.repo.softDelete(me.id, id, nowSec()))) throw new AppError('TOKEN_NOT_FOUND');
  }
}
