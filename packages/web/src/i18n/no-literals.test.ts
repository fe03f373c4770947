import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const srcRoot = join(__dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' || name === 'i18n' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [path] : [];
  });
}

/** docs/architecture.md#conventions: every visible string comes from i18n, so both languages stay complete. */
describe('no literal UI strings', () => {
  const files = sourceFiles(srcRoot);

  it('scans the components', () => {
    expect(files.length).toBeGreaterThan(20);
  });

  it('has no Chinese text outside the translation files', () => {
    const offenders = files.filter((file) => /[\u3400-\u9fff\uff01-\uff5e]/.test(
      // Comments may quote the spec's Chinese messages.
      readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
    ));
    expect(offenders.map((file) => relative(srcRoot, file))).toEqual([]);
  });

  it('has no words as JSX text in components', () => {
    const offenders: string[] = [];
    for (const file of files.filter((name) => name.endsWith('.tsx'))) {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      // Text right before a closing tag (`>Words</x>`); code never looks like that.
      for (const match of code.matchAll(/>([^<>{}]*)<\/[A-Za-z]/g)) {
        const text = match[1];
        if (/[A-Za-z]{2,}/.test(text) && !/[;()=]/.test(text)) offenders.push(`${relative(srcRoot, file)}: ${text.trim()}`);
      }
    }
    expect(offenders).toEqual([]);
  });
});
