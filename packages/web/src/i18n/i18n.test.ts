import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normaliseLanguage } from './index';

const root = __dirname;

function flatKeys(value: unknown, prefix = ''): string[] {
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.entries(value).flatMap(([key, child]) => flatKeys(child, prefix ? `${prefix}.${key}` : key));
  }
  return [prefix];
}

function load(lang: string): Record<string, unknown> {
  const dir = join(root, lang);
  return Object.fromEntries(
    readdirSync(dir)
      .filter((file) => file.endsWith('.json'))
      .map((file) => [file.replace(/\.json$/, ''), JSON.parse(readFileSync(join(dir, file), 'utf8'))]),
  );
}

describe('translations', () => {
  const zh = load('zh');
  const en = load('en');

  it('have the same namespaces in zh and en', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(zh).sort());
  });

  it('have identical key sets in zh and en', () => {
    expect(flatKeys(en).sort()).toEqual(flatKeys(zh).sort());
  });

  it('have no empty strings', () => {
    for (const bundle of [zh, en]) {
      const walk = (value: unknown, path: string): void => {
        if (typeof value === 'string') expect(value.trim(), path).not.toBe('');
        else if (value && typeof value === 'object') {
          for (const [key, child] of Object.entries(value)) walk(child, `${path}.${key}`);
        }
      };
      walk(bundle, '');
    }
  });

  it('use the same interpolation variables in both languages', () => {
    const vars = (text: string) => [...text.matchAll(/{{\s*(\w+)\s*}}/g)].map((m) => m[1]).sort();
    const zhFlat = flatten(zh);
    const enFlat = flatten(en);
    for (const [key, text] of Object.entries(zhFlat)) {
      expect(vars(enFlat[key] ?? ''), key).toEqual(vars(text));
    }
  });
});

function flatten(value: unknown, prefix = '', out: Record<string, string> = {}): Record<string, string> {
  if (typeof value === 'string') out[prefix] = value;
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) flatten(child, prefix ? `${prefix}.${key}` : key, out);
  }
  return out;
}

describe('normaliseLanguage', () => {
  it('falls back to Chinese', () => {
    expect(normaliseLanguage(null)).toBe('zh');
    expect(normaliseLanguage('fr')).toBe('zh');
    expect(normaliseLanguage('zh-CN')).toBe('zh');
    expect(normaliseLanguage('en-US')).toBe('en');
  });
});

describe('screen namespaces', () => {
  it('are fetched on demand and reported when missing', async () => {
    const { ChunkLoadError, default: i18n, loadNamespaces } = await import('./index');
    await loadNamespaces(['token']);
    expect(i18n.hasResourceBundle('zh', 'token')).toBe(true);
    await expect(loadNamespaces(['no-such-namespace'])).rejects.toBeInstanceOf(ChunkLoadError);
  });
});
