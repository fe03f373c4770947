import i18n from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['zh', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Same key the reference's language detector used, so a saved choice carries over. */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

// Every <lang>/<namespace>.json is bundled: the console is small and must work offline.
const files = import.meta.glob<Record<string, unknown>>('./*/*.json', { eager: true, import: 'default' });

export const resources: Record<string, Record<string, Record<string, unknown>>> = {};
for (const [path, content] of Object.entries(files)) {
  const match = /^\.\/([^/]+)\/([^/]+)\.json$/.exec(path);
  if (!match) continue;
  const [, lang, ns] = match;
  resources[lang] ??= {};
  resources[lang][ns] = content;
}

export const NAMESPACES = Object.keys(resources.zh ?? {});

/** Accepts values like "en-US" or "zh-CN" saved by other consoles; anything else is Chinese. */
export function normaliseLanguage(value: string | null | undefined): Language {
  return value && value.toLowerCase().startsWith('en') ? 'en' : 'zh';
}

export function savedLanguage(): Language {
  try {
    return normaliseLanguage(localStorage.getItem(LANGUAGE_STORAGE_KEY));
  } catch {
    return 'zh';
  }
}

void i18n.use(initReactI18next).init({
  resources,
  lng: savedLanguage(),
  fallbackLng: 'zh',
  supportedLngs: [...LANGUAGES],
  ns: NAMESPACES,
  defaultNS: 'common',
  initAsync: false,
  interpolation: { escapeValue: false },
  returnNull: false,
});

export function changeLanguage(lang: Language): Promise<unknown> {
  localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
  return i18n.changeLanguage(lang);
}

export default i18n;
