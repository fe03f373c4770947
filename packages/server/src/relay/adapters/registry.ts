import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ProvidersNotLoadedError, registerFormats, sealFormats, type FormatContribution } from '../formats/registry.js';
import { CONTRACT_VERSION, type Adapter } from './types.js';

export { CONTRACT_VERSION } from './types.js';

/**
 * Channel type → adapter, filled by the provider folders themselves.
 *
 * Every folder next to this file that holds an `adapter` module (`<slug>/adapter.ts` from source,
 * `adapter.js` in dist) is a provider unit: it exports `adapters` (the adapters it serves) and may
 * export `formats` (its wire formats and converters, a `FormatContribution`). Adding a provider is
 * adding a folder; no list here or in formats/registry.ts names it.
 *
 * Why it is shaped this way:
 * - Discovery is a directory read plus dynamic imports, so it is async: `loadProviders()` returns
 *   one memoised promise that every relaying entry point awaits before it serves (main.ts before
 *   listening, the test server before building the app, Vitest's setup file for unit tests). A
 *   top-level await here instead would make every importer of the registry wait on modules that
 *   themselves import the formats registry, which invites top-level-await import cycles.
 * - The imports go one way: adapter modules import formats/*; formats/registry.ts imports no
 *   adapter and is handed each folder's contribution through `registerFormats`.
 * - The order is deterministic: folders are imported one after another, sorted by name, and the
 *   adapter list is sorted by channel type, whatever order the file system lists them in.
 * - The module extension is this file's own: `.ts` when run from source (Vitest, tsx), `.js` from
 *   dist under node. A folder without that module (the task kinds, which register in
 *   task-registry.ts) is not a provider unit here.
 * - Reading the registry before the load finished is a boot-order bug: `adapterFor` and the
 *   others throw `ProvidersNotLoadedError` rather than answer "no adapter".
 */

/** What a provider folder's adapter module exports. */
export interface ProviderModule {
  readonly adapters: readonly Adapter[];
  readonly formats?: FormatContribution;
}

/** One discovered provider folder. */
export interface ProviderUnit {
  /** The folder name under relay/adapters/. */
  readonly folder: string;
  readonly adapters: readonly Adapter[];
}

interface Loaded {
  units: readonly ProviderUnit[];
  adapters: readonly Adapter[];
  byType: ReadonlyMap<number, Adapter>;
}

const HERE = path.dirname(fileURLToPath(import.meta.url));
const EXT = path.extname(fileURLToPath(import.meta.url));

let loaded: Loaded | undefined;
let loading: Promise<void> | undefined;

/** The provider folders next to this file (those with an adapter module), sorted by name. */
export function providerFolders(): string[] {
  return fs
    .readdirSync(HERE, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(HERE, e.name, `adapter${EXT}`)))
    .map((e) => e.name)
    .sort();
}

function isProviderModule(m: unknown): m is ProviderModule {
  return typeof m === 'object' && m !== null && Array.isArray((m as { adapters?: unknown }).adapters);
}

async function load(): Promise<void> {
  const units: ProviderUnit[] = [];
  for (const folder of providerFolders()) {
    const mod: unknown = await import(pathToFileURL(path.join(HERE, folder, `adapter${EXT}`)).href);
    if (!isProviderModule(mod)) throw new Error(`relay/adapters/${folder}/adapter${EXT} must export \`adapters\` (an array of the adapters it serves)`);
    if (mod.formats) registerFormats(`adapters/${folder}`, mod.formats);
    units.push({ folder, adapters: mod.adapters });
  }
  sealFormats();
  const adapters = units.flatMap((u) => u.adapters).sort((a, b) => Math.min(...a.types) - Math.min(...b.types));
  const byType = new Map<number, Adapter>();
  for (const a of adapters) {
    if (a.contract !== CONTRACT_VERSION) throw new Error(`adapter ${a.slug} implements contract ${String(a.contract)}, not ${CONTRACT_VERSION}`);
    for (const t of a.types) {
      const before = byType.get(t);
      if (before) throw new Error(`channel type ${t} registered twice (${before.slug} and ${a.slug})`);
      byType.set(t, a);
    }
  }
  loaded = { units, adapters, byType };
}

/** Discovers and registers every provider folder, once; every entry point that relays awaits it before serving. */
export function loadProviders(): Promise<void> {
  loading ??= load();
  return loading;
}

function registry(): Loaded {
  if (!loaded) throw new ProvidersNotLoadedError('the adapter registry');
  return loaded;
}

/** Every registered adapter, sorted by channel type. */
export function registeredAdapters(): readonly Adapter[] {
  return registry().adapters;
}

/** The provider folders and the adapters each registered, sorted by folder. */
export function providerUnits(): readonly ProviderUnit[] {
  return registry().units;
}

export function adapterFor(type: number): Adapter | undefined {
  return registry().byType.get(type);
}

/** Channel type → built-in model list, for `GET /api/models`. */
export function modelsByType(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of registry().adapters) for (const t of a.types) out[String(t)] = [...a.models];
  return out;
}

/** Every built-in model name once, for `GET /api/channel/models`. */
export function allBuiltinModels(): string[] {
  const seen = new Set<string>();
  for (const a of registry().adapters) for (const m of a.models) seen.add(m);
  return [...seen];
}
