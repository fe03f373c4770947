import { QUOTA_MAX } from '@modelgate/shared';
import { AppError } from '../../http/errors.js';
import { OPTION_SPECS } from './option-defaults.js';

/** Keys that belong to online payment: saving them needs a server address (notify URL). */
const PAYMENT_KEYS = new Set(['PayAddress', 'EpayId', 'EpayKey', 'Price', 'MinTopUp', 'TopupGroupRatio', 'CustomCallbackAddress']);
const RATIO_MAPS = new Set(['GroupRatio', 'TopupGroupRatio', 'ModelRatio', 'CompletionRatio', 'ModelPrice']);

/**
 * Validates and normalises one option value before it is stored (spec §5 system and operation
 * settings). `current` reads the other options the rules depend on.
 */
export function normaliseOption(key: string, raw: unknown, current: (key: string) => string): string {
  const spec = OPTION_SPECS[key];
  if (!spec) throw new AppError('OPTION_UNKNOWN', 200, key);
  let value = typeof raw === 'string' ? raw : raw === null || raw === undefined ? '' : typeof raw === 'object' ? JSON.stringify(raw) : String(raw);

  switch (spec.kind) {
    case 'bool': {
      const v = value.trim().toLowerCase();
      if (v !== 'true' && v !== 'false') throw new AppError('OPTION_NOT_BOOL', 200, key);
      value = v;
      break;
    }
    case 'int':
      if (!/^-?\d+$/.test(value.trim())) throw new AppError('OPTION_NOT_NUMBER', 200, key);
      value = value.trim();
      // Integer options are quotas and counts that end up in BIGINT columns and JSON numbers.
      if (!Number.isSafeInteger(Number(value))) throw new AppError('INT_OUT_OF_RANGE', 200, `${key} (${-QUOTA_MAX} ~ ${QUOTA_MAX})`);
      if (Number(value) < 0 && key !== 'RetryTimes') throw new AppError('QUOTA_NEGATIVE', 200, key);
      break;
    case 'float':
      if (value.trim() === '' || !Number.isFinite(Number(value))) throw new AppError('OPTION_NOT_NUMBER', 200, key);
      if (Number(value) < 0) throw new AppError('QUOTA_NEGATIVE', 200, key);
      value = value.trim();
      break;
    case 'json': {
      let parsed: unknown;
      try {
        parsed = JSON.parse(value);
      } catch {
        throw new AppError('OPTION_NOT_JSON', 200, key);
      }
      if (RATIO_MAPS.has(key)) {
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new AppError('OPTION_NOT_JSON', 200, key);
        for (const [name, v] of Object.entries(parsed)) {
          if (typeof v !== 'number' || !Number.isFinite(v)) throw new AppError('OPTION_NOT_NUMBER', 200, `${key}.${name}`);
          if (v < 0) throw new AppError('OPTION_NEGATIVE_RATIO', 200, `${key}.${name}`);
        }
      }
      if (key === 'Chats' && !Array.isArray(parsed)) throw new AppError('OPTION_NOT_JSON', 200, key);
      if (key === 'UserUsableGroups' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))) {
        throw new AppError('OPTION_NOT_JSON', 200, key);
      }
      break;
    }
    case 'address':
      value = value.trim().replace(/\/+$/, '');
      break;
    case 'string':
      break;
  }

  if (PAYMENT_KEYS.has(key) && current('ServerAddress') === '') throw new AppError('OPTION_SERVER_ADDRESS_FIRST');
  if (value === 'true') {
    if (key === 'GitHubOAuthEnabled' && (!current('GitHubClientId') || !current('GitHubClientSecret'))) throw new AppError('OPTION_GITHUB_CONFIG');
    if (key === 'LinuxDOOAuthEnabled' && (!current('LinuxDOClientId') || !current('LinuxDOClientSecret'))) throw new AppError('OPTION_LINUXDO_CONFIG');
    if (key === 'WeChatAuthEnabled' && !current('WeChatServerAddress')) throw new AppError('OPTION_WECHAT_CONFIG');
    if (key === 'TurnstileCheckEnabled' && (!current('TurnstileSiteKey') || !current('TurnstileSecretKey'))) throw new AppError('OPTION_TURNSTILE_CONFIG');
    if (key === 'TelegramOAuthEnabled' && (!current('TelegramBotName') || !current('TelegramBotToken'))) throw new AppError('OPTION_TELEGRAM_CONFIG');
    if (key === 'EmailDomainRestrictionEnabled' && !current('EmailDomainWhitelist').trim()) throw new AppError('OPTION_EMAIL_DOMAIN_CONFIG');
  }
  return value;
}
