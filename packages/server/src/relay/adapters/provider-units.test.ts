import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import type { ContractCaseModule } from '../../test-support/contract-case.js';
import { providerUnits } from './registry.js';

/**
 * A provider is one unit (issue 37): its folder `relay/adapters/<folder>/` holds its adapter, its
 * documented examples (`fixtures/`), a test that converts them without a server, and its case for
 * the shared contract suite; and nothing outside the folder depends on it, so adding a provider is
 * adding a folder (plus its catalogue rows in packages/shared).
 *
 * One exception is by design: a folder's `formats/` is the wire format it speaks, which others may
 * speak too (Vertex and Bedrock speak Anthropic Messages; the native `/v1/messages` and `/v1beta`
 * ingress read Anthropic and Gemini caller bodies). Importing `<folder>/formats/**` names a format;
 * importing anything else of a folder (its adapter, its helpers) names the provider, and fails here.
 */
const ADAPTERS_DIR = import.meta.dirname;
const SERVER_SRC = path.resolve(ADAPTERS_DIR, '../..');
const units = providerUnits();

/** Each folder's contract cases by adapter slug (a folder may say its upstream never streams). */
const casesBySlug = new Map(
  (
    await Promise.all(
      units
        .filter((u) => fs.existsSync(path.join(ADAPTERS_DIR, u.folder, 'contract.case.ts')))
        .map(async (u) => ((await import(`./${u.folder}/contract.case.ts`)) as ContractCaseModule).contractCases),
    )
  )
    .flat()
    .map((c) => [c.slug, c] as const),
);

/** A folder needs a stream fixture when one of its adapters serves a streamable mode from an upstream that streams. */
const streams = (adapters: (typeof units)[number]['adapters']): boolean =>
  adapters.some((a) => (a.modes.has('chat') || a.modes.has('completions')) && !casesBySlug.get(a.slug)?.noUpstreamStream);

function filesUnder(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    return e.isDirectory() ? filesUnder(p) : [p];
  });
}

/** What a folder still lacks; empty when it is a complete unit. */
function gapsOf(folder: string, streams: boolean): string[] {
  const dir = path.join(ADAPTERS_DIR, folder);
  const gaps: string[] = [];
  const kinds = new Set(providerFixtureNames(folder).map((name) => providerFixture(folder, name).kind));
  const wanted = streams ? (['request', 'response', 'error', 'stream'] as const) : (['request', 'response', 'error'] as const);
  for (const k of wanted) if (!kinds.has(k)) gaps.push(`fixtures/: no ${k} fixture`);
  const loadsFixtures = filesUnder(dir).some((f) => {
    if (!f.endsWith('.test.ts') || f.endsWith('.api.test.ts')) return false;
    // `providerFixture('<folder>', …)` or a helper built on it (test-support/adapter-replay.ts: `fixtureBody(…)`), the folder named in the file.
    const src = fs.readFileSync(f, 'utf8');
    return /\w*[Ff]ixture\w*\(/.test(src) && (src.includes(`'${folder}'`) || src.includes(`"${folder}"`));
  });
  if (!loadsFixtures) gaps.push(`no test file without a server (*.test.ts, not *.api.test.ts) loads its fixtures through providerFixture('${folder}', …) or a helper on it`);
  if (!fs.existsSync(path.join(dir, 'contract.case.ts'))) gaps.push('no contract.case.ts (its case for relay/adapters/contract.api.test.ts)');
  return gaps;
}

/** The server's shipped sources: tests, contract cases and test support excluded. */
function shippedSources(): string[] {
  return filesUnder(SERVER_SRC).filter((f) => {
    const rel = path.relative(SERVER_SRC, f);
    return /\.ts$/.test(f) && !f.endsWith('.d.ts') && !/\.(test|case)\.ts$/.test(f) && !rel.startsWith('test-support') && !rel.startsWith('agents');
  });
}

function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  return [`${base}.ts`, path.join(base, 'index.ts')].find((c) => fs.existsSync(c));
}

/** Imports of a provider folder's non-format files from outside that folder: `importer → target`. */
function crossFolderImports(): string[] {
  const folders = new Set(units.map((u) => u.folder));
  const out: string[] = [];
  for (const file of shippedSources()) {
    const fromRel = path.relative(ADAPTERS_DIR, file).split(path.sep);
    const ownFolder = fromRel.length > 1 && folders.has(fromRel[0]!) ? fromRel[0] : undefined;
    for (const imp of ts.preProcessFile(fs.readFileSync(file, 'utf8'), true, true).importedFiles) {
      const target = resolveLocal(file, imp.fileName);
      if (!target) continue;
      const rel = path.relative(ADAPTERS_DIR, target).split(path.sep);
      if (rel.length < 2 || !folders.has(rel[0]!) || rel[0] === ownFolder) continue;
      if (rel[1] === 'formats') continue;
      out.push(`${path.relative(SERVER_SRC, file)} → ${path.relative(SERVER_SRC, target)}`);
    }
  }
  return out.sort();
}

/**
 * Folders not yet complete, each with how many gaps it still has (none since Vertex and Bedrock got
 * their fixtures). A folder listed must have exactly that many (the test fails once it is complete,
 * so the entry is removed), and no other folder may have any: a gap is visible and cannot grow.
 */
const KNOWN_GAPS: Readonly<Record<string, number>> = {};

describe('every provider folder is a complete unit', () => {
  it('finds the provider folders through the registry', () => {
    expect(units.length).toBeGreaterThan(10);
  });

  it.each(units.map((u) => ({ folder: u.folder, streams: streams(u.adapters) })))(
    '$folder has its fixtures, a fixture test without a server and a contract case',
    ({ folder, streams }) => {
      const gaps = gapsOf(folder, streams);
      if (folder in KNOWN_GAPS) expect(gaps, `relay/adapters/${folder}/ is listed in KNOWN_GAPS with ${KNOWN_GAPS[folder]} gaps`).toHaveLength(KNOWN_GAPS[folder]!);
      else expect(gaps, `relay/adapters/${folder}/ is missing`).toEqual([]);
    },
  );

  it('the guard itself sees every gap of an empty folder', () => {
    expect(gapsOf(`no-such-provider-${process.pid}`, true)).toHaveLength(6);
  });
});

describe('nothing outside a provider folder depends on it', () => {
  it('no shipped source outside relay/adapters/<folder>/ imports its adapter or helpers (its formats/ excepted)', () => {
    expect(crossFolderImports()).toEqual([]);
  });
});
