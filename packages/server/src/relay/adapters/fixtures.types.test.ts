import { providerFixtureNames, type ProviderFixture } from '@modelgate/testkit';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * Every provider fixture satisfies the type it names: the official SDK's (`openai`,
 * `@anthropic-ai/sdk`, `@google/genai`) or, for a provider with no SDK here, the schema written once
 * in its folder (`import('./wire-types.js').X`, relative to the provider's folder). One in-memory
 * program type-checks `const f: <type> = <body>;` per fixture (an array of `<type>` for a stream's
 * events), so a literal that lacks a required field, has a wrong type or carries a field the type
 * does not know (excess property) fails with the compiler's own message.
 */
const ADAPTERS = path.dirname(fileURLToPath(import.meta.url));
const SERVER = path.resolve(ADAPTERS, '../../..');
const KINDS = new Set(['request', 'response', 'stream', 'error']);

interface Loaded {
  folder: string;
  name: string;
  fixture: ProviderFixture;
}

function loadAll(): Loaded[] {
  const out: Loaded[] = [];
  for (const folder of fs.readdirSync(ADAPTERS).sort()) {
    if (!fs.existsSync(path.join(ADAPTERS, folder, 'fixtures'))) continue;
    for (const name of providerFixtureNames(folder)) {
      out.push({ folder, name, fixture: JSON.parse(fs.readFileSync(path.join(ADAPTERS, folder, 'fixtures', `${name}.json`), 'utf8')) as ProviderFixture });
    }
  }
  return out;
}

/** Envelope problems of one fixture (empty when it is well formed). */
function envelopeProblems(f: ProviderFixture): string[] {
  const problems: string[] = [];
  if (typeof f.source !== 'string' || !f.source.trim()) problems.push('no source');
  if (!KINDS.has(f.kind)) problems.push(`kind ${JSON.stringify(f.kind)} is not one of ${[...KINDS].join(', ')}`);
  if (typeof f.type !== 'string' || !f.type.trim()) problems.push('no type');
  if (f.kind === 'stream' ? !Array.isArray(f.events) || f.events.length === 0 : f.body === undefined) problems.push(f.kind === 'stream' ? 'a stream without events' : 'no body');
  // An HTTP error names its status; a WebSocket upstream's error frame (Spark) has none.
  if (f.status !== undefined && (!Number.isInteger(f.status) || f.status < 200 || f.status > 599)) problems.push(`status ${String(f.status)} is not an HTTP status`);
  return problems;
}

/** The check source of one provider folder: one typed constant per fixture. */
function checkSource(items: readonly Loaded[]): string {
  return items
    .map(({ fixture: f }, i) => {
      const value = f.kind === 'stream' ? JSON.stringify(f.events) : JSON.stringify(f.body);
      const type = f.kind === 'stream' ? `Array<${f.type}>` : f.type;
      return `// ${i}\nexport const f${i}: ${type} = ${value};\n`;
    })
    .join('\n');
}

/**
 * Type-checks fixtures grouped by folder: each folder's check file sits in that folder (so
 * `import('./wire-types.js')` resolves there) and exists only in the compiler host's memory.
 * Returns `<folder>/<fixture>: <diagnostic>` lines.
 */
function typeCheck(groups: ReadonlyMap<string, readonly Loaded[]>): string[] {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(SERVER, 'tsconfig.json'), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: () => undefined });
  const options: ts.CompilerOptions = { ...(parsed?.options ?? {}), noEmit: true, composite: false, declaration: false, incremental: false, skipLibCheck: true, rootDir: undefined };
  const virtual = new Map<string, { source: string; items: readonly Loaded[] }>();
  for (const [folder, items] of groups) virtual.set(path.join(ADAPTERS, folder, '__fixtures_check__.ts'), { source: checkSource(items), items });
  const host = ts.createCompilerHost(options);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (f) => virtual.get(path.resolve(f))?.source ?? readFile(f);
  host.fileExists = (f) => virtual.has(path.resolve(f)) || fileExists(f);
  host.getSourceFile = (f, lang, onError, create) => {
    const v = virtual.get(path.resolve(f));
    return v ? ts.createSourceFile(f, v.source, lang, true) : getSourceFile(f, lang, onError, create);
  };
  const program = ts.createProgram([...virtual.keys()], options, host);
  const problems: string[] = [];
  for (const [file, { items }] of virtual) {
    const sf = program.getSourceFile(file);
    if (!sf) continue;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const line = d.start === undefined ? 0 : sf.getLineAndCharacterOfPosition(d.start).line;
      // Each constant's comment line `// i` precedes it: the nearest one above names the fixture.
      let i = -1;
      for (let l = line; l >= 0 && i < 0; l--) {
        const m = /^\/\/ (\d+)$/.exec(sf.text.split('\n')[l] ?? '');
        if (m) i = Number(m[1]);
      }
      const it = items[i];
      problems.push(`${it ? `${it.folder}/fixtures/${it.name}.json` : file}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n').slice(0, 600)}`);
    }
  }
  return problems;
}

const all = loadAll();
const byFolder = new Map<string, Loaded[]>();
for (const l of all) byFolder.set(l.folder, [...(byFolder.get(l.folder) ?? []), l]);

describe('provider fixtures', () => {
  it('are found in the provider folders', () => {
    expect(all.length).toBeGreaterThan(0);
  });

  it('each has a well-formed envelope: source, kind, type, body or events, an error status', () => {
    const bad = all.flatMap(({ folder, name, fixture }) => envelopeProblems(fixture).map((p) => `${folder}/${name}: ${p}`));
    expect(bad).toEqual([]);
  });

  it('each satisfies the type it names (the official SDK type, or the folder wire-types)', () => {
    expect(typeCheck(byFolder)).toEqual([]);
  }, 120_000);

  it('fails a fixture that does not satisfy its type, naming the fixture', () => {
    const folder = [...byFolder.keys()].find((f) => fs.existsSync(path.join(ADAPTERS, f, 'wire-types.ts'))) ?? [...byFolder.keys()][0]!;
    const wrong: Loaded = {
      folder,
      name: 'deliberately-wrong',
      fixture: { source: 'this test', kind: 'response', type: "import('openai').OpenAI.ChatCompletion", body: { id: 1, object: 'chat.completion', unknown_field: true } },
    };
    const problems = typeCheck(new Map([[folder, [wrong]]]));
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((p) => p.startsWith(`${folder}/fixtures/deliberately-wrong.json: `))).toBe(true);
  }, 120_000);
});
