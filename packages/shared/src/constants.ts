/** Business constants and limits shared by server and web (spec §5, §9). */

/** 500 000 quota units are one dollar (the QuotaPerUnit option's default). */
export const DEFAULT_QUOTA_PER_UNIT = 500_000;

/** Spec §9: a new token starts with 500 000 units ($1 at the default rate). */
export const DEFAULT_TOKEN_QUOTA = 500_000;

/** Length of an API token key, without the `sk-` prefix. */
export const TOKEN_KEY_LENGTH = 48;

export const USERNAME_MAX_LENGTH = 12;
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 20;
export const DISPLAY_NAME_MAX_LENGTH = 20;
export const EMAIL_MAX_LENGTH = 50;
export const TOKEN_NAME_MAX_LENGTH = 30;
/** Group names are stored in 64-character columns (users, tokens, abilities, logs). */
export const GROUP_NAME_MAX_LENGTH = 64;
