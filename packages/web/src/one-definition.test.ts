import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md#conventions "One definition": entity types, enums and the quota and cost math are defined once in
 * packages/shared and imported here. This test reads the console's sources (tests and test
 * helpers excluded) and names every file that declares its own copy.
 */
const srcRoot = join(__dirname);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === 'test' ? [] : sourceFiles(path);
    return /\.tsx?$/.test(name) && !/\.(test|d)\.tsx?$/.test(name) ? [path] : [];
  });
}

const files = sourceFiles(srcRoot).map((path) => ({
  file: relative(srcRoot, path).replaceAll('\\', '/'),
  // Comments may name what they describe.
  code: readFileSync(path, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, ''),
}));

function offenders(pattern: RegExp, allowed: Record<string, readonly string[]> = {}): string[] {
  const found: string[] = [];
  for (const { file, code } of files) {
    for (const match of code.matchAll(pattern)) {
      const name = match[1] ?? match[0];
      if (!allowed[file]?.includes(name)) found.push(`${file}: ${name}`);
    }
  }
  return found;
}

/**
 * Type names of the spec §3 entities, their enums and wire bodies: `User`, `ManagedUser`,
 * `LogEntry`, `TokenStatusKey`, `SiteStatus`, … (a prefix, an entity word, an entity suffix).
 * UI types (`ChannelTableProps`, `TokenFormValues`, `ChannelRow`) do not match.
 */
const ENTITY_TYPE =
  /^\s*(?:export\s+)?(?:interface|type)\s+(\w*(?:User|Token|Channel|Log|Redemption|Option|Task|Midjourney|Pricing|Price|Usage|Quota|Role|Status|Envelope|Paged|Group)(?:Entry|Stat|Input|Info|Result|Other|Key|Keys|Type|Kind|Display|Body|Data|Spec)?)\b(?=\s*(?:[={<]|extends\b))/gm;

/**
 * `/api` entity and body types the routes work of issue 11 moves into packages/shared/src/api.
 * Each entry must still exist (the test fails when one is gone, so this list only shrinks).
 */
const PENDING_API_TYPES: Record<string, readonly string[]> = {};

describe('one definition (docs/architecture.md#conventions)', () => {
  it('reads the console sources', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('declares no enum', () => {
    expect(offenders(/^\s*(?:export\s+)?(?:declare\s+)?(?:const\s+)?enum\s+(\w+)/gm)).toEqual([]);
  });

  it('declares no entity, status, role or type enum of its own (they come from @modelgate/shared)', () => {
    expect(offenders(ENTITY_TYPE, PENDING_API_TYPES)).toEqual([]);
  });

  it('keeps the list of pending /api types honest: each one is still there', () => {
    const declared = new Set(offenders(ENTITY_TYPE));
    const missing = Object.entries(PENDING_API_TYPES).flatMap(([file, names]) => names.filter((name) => !declared.has(`${file}: ${name}`)).map((name) => `${file}: ${name}`));
    expect(missing, 'remove these from PENDING_API_TYPES').toEqual([]);
  });

  it('keeps no table of roles, statuses, types or task states', () => {
    expect(offenders(/\bconst\s+([A-Z0-9_]*(?:ROLES?|STATUS(?:ES)?|TYPES?|STATES?|ACTIONS))\s*[:=]/g)).toEqual([]);
  });

  it('compares no status, type or role with a bare number (a copy of the enum)', () => {
    // HTTP statuses of a response or an error are not the entities' statuses.
    expect(offenders(/(?<!response|error|res|reply|err)\.(?:status|type|role)\s*(?:===|!==|==|!=|>=|<=|>|<)\s*\d+/g)).toEqual([]);
  });

  it('defines no quota, price or cost function (the shared quota and pricing modules have them)', () => {
    const fn = /\bfunction\s+([a-z]\w*)|\bconst\s+([a-z]\w*)\s*=\s*(?:async\s*)?(?:\([^)]*\)|[a-z]\w*)\s*(?::[^=]+)?=>/g;
    const math = /quota|cost|price|dollar|currency|usd|cny|charge|breakdown|abbreviat/i;
    const found: string[] = [];
    for (const { file, code } of files) {
      for (const match of code.matchAll(fn)) {
        const name = match[1] ?? match[2];
        if (math.test(name)) found.push(`${file}: ${name}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('does no quota arithmetic: no quota unit literal, no division by QuotaPerUnit, no ratio products', () => {
    expect(offenders(/\b(500_?000|5e5)\b/g)).toEqual([]);
    expect(offenders(/(?:quotaPerUnit|quota_per_unit)\s*[*/]|[*/]\s*[\w.]*(?:quotaPerUnit|quota_per_unit)/g)).toEqual([]);
    expect(offenders(/[\w.]*[Rr]atio\s*\*\s*[\w.(]+|\*\s*[\w.]*[Rr]atio\b/g)).toEqual([]);
  });
});
