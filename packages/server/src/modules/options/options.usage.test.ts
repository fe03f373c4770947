import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { OPTION_KEYS, type OptionKey } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';

/**
 * Issue 17 item 2: an option the console saves but no code reads is a setting that silently does
 * nothing. Every key of the registry must be read by the server's code (outside tests): through
 * `options.str/bool/num/json('Key')`, a `/api/status` field, or a list of keys a service walks.
 */
const serverRoot = join(__dirname, '..', '..');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test-support' ? [] : sources(path);
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : [];
  });
}

/**
 * Keys whose effect is still to be built (none today). The test below fails for an entry that is
 * read by then, so this list cannot go stale.
 */
const PENDING: ReadonlySet<OptionKey> = new Set<OptionKey>([]);

describe('every option has an effect', () => {
  const files = sources(serverRoot);
  // Comments may name a key without reading it.
  const code = files.map((file) => ({ file, text: readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '') }));
  const readers = (key: OptionKey) => code.filter(({ text }) => text.includes(`'${key}'`) || text.includes(`"${key}"`)).map(({ file }) => relative(serverRoot, file));

  it('scans the server source', () => {
    expect(files.length).toBeGreaterThan(100);
  });

  it('finds code that reads each key of the registry', () => {
    const unread = OPTION_KEYS.filter((key) => !PENDING.has(key) && readers(key).length === 0);
    expect(unread).toEqual([]);
  });

  it('lists as pending only registry keys that nothing reads yet', () => {
    const stale = [...PENDING].filter((key) => !OPTION_KEYS.includes(key) || readers(key).length > 0);
    expect(stale).toEqual([]);
  });
});
