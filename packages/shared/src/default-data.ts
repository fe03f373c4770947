/**
 * Data the server makes up rather than stores from an admin: option defaults nobody saved, the
 * welcome token's name, a copied channel's suffix. Each has a zh and an en form, answered in the
 * caller's language (issue 35: Chinese defaults showed in the English console). The zh forms are
 * the reference's, so a reference console or database sees what it always saw. A value an admin
 * saved is never translated: it is returned exactly as saved.
 */
import type { Lang } from './messages.js';

type Localised<T> = { readonly zh: T; readonly en: T };

/** Chat clients offered from the token list; `{key}` and `{address}` are filled by the console. */
const CHAT_LINKS = {
  nextChat: 'https://app.nextchat.dev/#/?settings={"key":"{key}","url":"{address}"}',
  lobeChat: 'https://chat-preview.lobehub.com/?settings={"keyVaults":{"openai":{"apiKey":"{key}","baseURL":"{address}/v1"}}}',
  aiaw: 'https://aiaw.app/set-provider?provider={"type":"openai","settings":{"apiKey":"{key}","baseURL":"{address}/v1","compatibility":"strict"}}',
  ama: 'ama://set-api-key?server={address}&key={key}',
  openCat: 'opencat://team/join?domain={address}&token={key}',
} as const;

export const DEFAULT_CHATS: Localised<ReadonlyArray<Record<string, string>>> = {
  zh: [
    { 'ChatGPT Next Web 官方示例': CHAT_LINKS.nextChat },
    { 'Lobe Chat 官方示例': CHAT_LINKS.lobeChat },
    { 'AI as Workspace': CHAT_LINKS.aiaw },
    { AMA问天: CHAT_LINKS.ama },
    { OpenCat: CHAT_LINKS.openCat },
  ],
  en: [
    { 'ChatGPT Next Web (official demo)': CHAT_LINKS.nextChat },
    { 'Lobe Chat (official demo)': CHAT_LINKS.lobeChat },
    { 'AI as Workspace': CHAT_LINKS.aiaw },
    { AMA: CHAT_LINKS.ama },
    { OpenCat: CHAT_LINKS.openCat },
  ],
};

/** Group → description shown where a user picks a group. */
export const DEFAULT_USABLE_GROUPS: Localised<Readonly<Record<string, string>>> = {
  zh: { default: '默认分组', vip: 'vip分组' },
  en: { default: 'Default group', vip: 'VIP group' },
};

/** The description of a user's own group when UserUsableGroups does not name it. */
export const OWN_GROUP_DESCRIPTION: Localised<string> = { zh: '用户分组', en: 'Your group' };

/** The unlimited token a new user gets with GENERATE_DEFAULT_TOKEN. */
export function welcomeTokenName(username: string, lang: Lang): string {
  return lang === 'en' ? `${username}'s initial token` : `${username}的初始令牌`;
}

/** Appended to a copied channel's name when the caller names no suffix. */
export const CHANNEL_COPY_SUFFIX: Localised<string> = { zh: '_复制', en: '_copy' };

/** The option defaults that have a form per language, as the stored JSON text. */
export const LOCALISED_OPTION_DEFAULTS = {
  Chats: { zh: JSON.stringify(DEFAULT_CHATS.zh, null, 2), en: JSON.stringify(DEFAULT_CHATS.en, null, 2) },
  UserUsableGroups: { zh: JSON.stringify(DEFAULT_USABLE_GROUPS.zh, null, 2), en: JSON.stringify(DEFAULT_USABLE_GROUPS.en, null, 2) },
} as const satisfies Record<string, Localised<string>>;

export type LocalisedOptionKey = keyof typeof LOCALISED_OPTION_DEFAULTS;

export function isLocalisedOption(key: string): key is LocalisedOptionKey {
  return Object.hasOwn(LOCALISED_OPTION_DEFAULTS, key);
}
