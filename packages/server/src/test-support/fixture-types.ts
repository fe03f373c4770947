import type { ProviderFixture } from '@modelgate/testkit';
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * The type checker of provider fixtures (relay/adapters/fixtures.types.test.ts). Converter tests use
 * it too, to check what a converter wrote against an SDK type (`typeProblems` on in-memory fixtures).
 *
 * How it checks: one in-memory TypeScript program for all fixtures given, with the compiler options
 * of packages/server/tsconfig.json (strict). Each provider folder gets one virtual source file,
 * `relay/adapters/<slug>/__fixtures_check__.ts`, holding a declaration per fixture:
 * `const f0: (<type>) = <body>;`, or `const f1: Array<(<type>)> = <events>;` for a stream. That file
 * sits in the provider folder itself (not in `fixtures/`), so a relative specifier in `type` resolves
 * from the provider folder: `./wire-types.js` is `relay/adapters/<slug>/wire-types.ts`, and
 * `../anthropic/wire-types.js` is a sibling provider's. Package specifiers (`openai`,
 * `@anthropic-ai/sdk`, `@google/genai`) resolve as the server's own sources do (NodeNext).
 * The body is written as an object literal, so TypeScript's excess-property check applies: a field
 * the type does not declare fails, as do a missing required field and a wrong literal.
 */
const ADAPTERS_DIR = path.resolve(import.meta.dirname, '../relay/adapters');
const SERVER_DIR = path.resolve(import.meta.dirname, '../..');
const CHECK_FILE = '__fixtures_check__.ts';
const KINDS = new Set(['request', 'response', 'stream', 'error']);
const ENVELOPE_FIELDS = new Set(['source', 'kind', 'type', 'status', 'body', 'events', 'eventNames', 'note']);

/** A fixture as found: its provider folder, file name and parsed (not yet validated) envelope. */
export interface FoundFixture {
  slug: string;
  file: string;
  fixture: ProviderFixture;
}

/** Every `relay/adapters/<slug>/fixtures/*.json`, parsed. */
export function discoverFixtures(): FoundFixture[] {
  return fs
    .readdirSync(ADAPTERS_DIR, { withFileTypes: true })
    .filter((d) => d.isDirectory() && fs.existsSync(path.join(ADAPTERS_DIR, d.name, 'fixtures')))
    .sort((a, b) => a.name.localeCompare(b.name))
    .flatMap((d) =>
      fs
        .readdirSync(path.join(ADAPTERS_DIR, d.name, 'fixtures'))
        .filter((n) => n.endsWith('.json'))
        .sort()
        .map((file) => ({ slug: d.name, file, fixture: JSON.parse(fs.readFileSync(path.join(ADAPTERS_DIR, d.name, 'fixtures', file), 'utf8')) as ProviderFixture })),
    );
}

/** What is wrong with an envelope itself, before its type is looked at (empty when well formed). */
export function envelopeProblems(f: ProviderFixture): string[] {
  const out: string[] = [];
  for (const k of Object.keys(f)) if (!ENVELOPE_FIELDS.has(k)) out.push(`unknown envelope field "${k}"`);
  if (typeof f.source !== 'string' || !f.source.trim()) out.push('source is empty (name the doc page or SDK example)');
  if (!KINDS.has(f.kind)) out.push(`kind ${JSON.stringify(f.kind)} is not one of request|response|stream|error`);
  if (typeof f.type !== 'string' || !f.type.trim()) out.push('type is empty (name the TS type every body/event satisfies)');
  if (f.kind === 'stream') {
    if (!Array.isArray(f.events) || f.events.length === 0) out.push('a stream needs a non-empty events array');
    if (f.body !== undefined) out.push('a stream carries events, not body');
    if (f.eventNames !== undefined && (!Array.isArray(f.eventNames) || f.eventNames.length !== f.events?.length)) out.push('eventNames must name every event (same length as events)');
  } else {
    if (f.body === undefined) out.push(`a ${String(f.kind)} needs a body`);
    if (f.events !== undefined || f.eventNames !== undefined) out.push(`a ${String(f.kind)} carries a body, not events`);
  }
  // No status rule for errors: some come with HTTP 200 (Baidu, Tencent), some in a WebSocket frame (Spark).
  if (f.status !== undefined && (!Number.isInteger(f.status) || f.status < 100 || f.status > 599)) out.push(`status ${String(f.status)} is not an HTTP status`);
  if (f.note !== undefined && typeof f.note !== 'string') out.push('note must be a string');
  return out;
}

function compilerOptions(): ts.CompilerOptions {
  const parsed = ts.getParsedCommandLineOfConfigFile(path.join(SERVER_DIR, 'tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  });
  if (!parsed) throw new Error('packages/server/tsconfig.json could not be read');
  // Checking only: nothing is emitted, and the project-build settings do not apply to a virtual program.
  const { composite: _c, declaration: _d, incremental: _i, tsBuildInfoFile: _t, outDir: _o, rootDir: _r, sourceMap: _s, ...rest } = parsed.options;
  return { ...rest, noEmit: true, allowImportingTsExtensions: true };
}

/** Lib and SDK declaration files parsed once per test file, shared by every program built here. */
const parsedFiles = new Map<string, ts.SourceFile>();
let options: ts.CompilerOptions | undefined;

/** One located type problem: the fixture (`<slug>/fixtures/<file>`) and the compiler's message. */
export interface FixtureTypeProblem {
  fixture: string;
  message: string;
}

/** Type-checks fixtures in one program and returns every problem, each named by its fixture. */
export function typeProblems(fixtures: readonly FoundFixture[]): FixtureTypeProblem[] {
  options ??= compilerOptions();
  const virtual = new Map<string, { text: string; spans: { start: number; end: number; name: string }[] }>();
  fixtures.forEach((fx, i) => {
    const file = path.join(ADAPTERS_DIR, fx.slug, CHECK_FILE);
    const v = virtual.get(file) ?? { text: 'export {};\n', spans: [] };
    const f = fx.fixture;
    const value = JSON.stringify(f.kind === 'stream' ? f.events : f.body, null, 1);
    const decl = f.kind === 'stream' ? `const f${i}: Array<(${f.type})> = ${value};\n` : `const f${i}: (${f.type}) = ${value};\n`;
    v.spans.push({ start: v.text.length, end: v.text.length + decl.length, name: `${fx.slug}/fixtures/${fx.file}` });
    v.text += decl;
    virtual.set(file, v);
  });

  const host = ts.createCompilerHost(options, true);
  const realGet = host.getSourceFile.bind(host);
  const realExists = host.fileExists.bind(host);
  const realRead = host.readFile.bind(host);
  host.fileExists = (f) => virtual.has(path.resolve(f)) || realExists(f);
  host.readFile = (f) => virtual.get(path.resolve(f))?.text ?? realRead(f);
  host.getSourceFile = (f, lang, onError, create) => {
    const v = virtual.get(path.resolve(f));
    if (v) return ts.createSourceFile(f, v.text, lang, true);
    const cached = parsedFiles.get(f);
    if (cached) return cached;
    const sf = realGet(f, lang, onError, create);
    if (sf) parsedFiles.set(f, sf);
    return sf;
  };
  const program = ts.createProgram({ rootNames: [...virtual.keys()], options, host });

  const problems: FixtureTypeProblem[] = [];
  for (const [file, v] of virtual) {
    const sf = program.getSourceFile(file)!;
    for (const d of [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]) {
      const at = d.start ?? 0;
      const span = v.spans.find((s) => at >= s.start && at < s.end);
      problems.push({ fixture: span?.name ?? path.relative(ADAPTERS_DIR, file), message: ts.flattenDiagnosticMessageText(d.messageText, '\n') });
    }
  }
  return problems;
}

/** `typeProblems` for values a test produced (a converter's output), as `<label>: <message>` lines. */
export function valueTypeProblems(slug: string, type: string, values: Record<string, { kind?: 'stream'; value: unknown }>): string[] {
  const fixtures: FoundFixture[] = Object.entries(values).map(([label, v]) => ({
    slug,
    file: label,
    fixture: v.kind === 'stream' ? { source: 'test', kind: 'stream', type, events: v.value as unknown[] } : { source: 'test', kind: 'response', type, body: v.value },
  }));
  return typeProblems(fixtures).map((p) => `${p.fixture.slice(`${slug}/fixtures/`.length)}: ${p.message}`);
}
