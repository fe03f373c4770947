import i18n, { type BackendModule, type ReadCallback } from 'i18next';
import { initReactI18next } from 'react-i18next';

export const LANGUAGES = ['zh', 'en'] as const;
export type Language = (typeof LANGUAGES)[number];
/** Same key the reference's language detector used, so a saved choice carries over. */
export const LANGUAGE_STORAGE_KEY = 'i18nextLng';

type Bundle = Record<string, unknown>;

// The shell's namespaces (header, footer, errors) and the sign-in screens' are bundled with the
// entry; every other <lang>/<namespace>.json is fetched with its screen (router.tsx asks for it
// before the screen renders), so the sign-in page does not carry the console's wording.
const bundled = import.meta.glob<Bundle>(['./*/common.json', './*/auth.json'], { eager: true, import: 'default' });
const fetched = import.meta.glob<Bundle>(['./*/*.json', '!./*/common.json', '!./*/auth.json'], { import: 'default' });

function parsePath(path: string): [lang: string, ns: string] | null {
  const match = /^\.\/([^/]+)\/([^/]+)\.json$/.exec(path);
  return match ? [match[1], match[2]] : null;
}

export const resources: Record<string, Record<string, Bundle>> = {};
for (const [path, content] of Object.entries(bundled)) {
  const parsed = parsePath(path);
  if (!parsed) continue;
  const [lang, ns] = parsed;
  resources[lang] ??= {};
  resources[lang][ns] = content;
}

/** Every namespace, bundled or fetched. */
export const NAMESPACES = [...new Set([...Object.keys(bundled), ...Object.keys(fetched)].map((path) => parsePath(path)?.[1] ?? ''))].filter(Boolean);

/** Reads a fetched namespace from its chunk; i18next loads each language and namespace once. */
const chunkBackend: BackendModule = {
  type: 'backend',
  callbackApi: true,
  init() {},
  read(language: string, namespace: string, callback: ReadCallback) {
    const load = fetched[`./${language}/${namespace}.json`];
    if (!load) {
      callback(new Error(`no translations for ${language}/${namespace}`), false);
      return;
    }
    load().then(
      (data) => callback(null, data),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
    );
  },
};

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

void i18n
  .use(chunkBackend)
  .use(initReactI18next)
  .init({
    resources,
    partialBundledLanguages: true,
    lng: savedLanguage(),
    fallbackLng: 'zh',
    supportedLngs: [...LANGUAGES],
    ns: Object.keys(resources.zh ?? {}),
    defaultNS: 'common',
    initAsync: false,
    interpolation: { escapeValue: false },
    returnNull: false,
    // A chunk that failed once (a redeploy removed it, the network dropped) is retried once, not
    // five times over ten seconds of spinner.
    maxRetries: 1,
  });

/** A screen's translations could not be fetched: the router shows it like a screen chunk that failed. */
export class ChunkLoadError extends Error {
  override readonly name = 'ChunkLoadError';
}

/**
 * Fetches a screen's namespaces (in the current and the fallback language); rejects with a
 * ChunkLoadError when one cannot be fetched, so the screen never shows raw keys.
 */
export async function loadNamespaces(namespaces: readonly string[]): Promise<void> {
  await i18n.loadNamespaces([...namespaces]);
  const missing = namespaces.filter((ns) => !i18n.hasResourceBundle(i18n.language, ns));
  if (missing.length) throw new ChunkLoadError(`translations not loaded: ${missing.join(', ')}`);
}

export function changeLanguage(lang: Language): Promise<unknown> {
  localStorage.setItem(LANGUAGE_STORAGE_KEY, lang);
  return i18n.changeLanguage(lang);
}

export default i18n;
