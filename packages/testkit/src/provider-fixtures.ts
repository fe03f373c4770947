import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * A provider's documented example, as kept in its folder
 * (`packages/server/src/relay/adapters/<slug>/fixtures/<name>.json`): the provider's own request,
 * answer, stream or error, taken from its documentation or official SDK examples. The fakes replay
 * these instead of restating the provider's rules, and the adapter's tests convert them.
 */
export interface ProviderFixture {
  /** Where the example comes from: the documentation page or SDK example it was read from. */
  source: string;
  kind: 'request' | 'response' | 'stream' | 'error';
  /**
   * The type every body (or every stream event) satisfies, as a TypeScript type expression: an
   * official SDK's type (`import('@anthropic-ai/sdk').Anthropic.Messages.Message`), or for a provider
   * with no SDK here, its documented schema written once in its folder (`import('./wire-types.js').X`,
   * relative to the provider's folder). `fixtures.types.test.ts` type-checks every fixture against it.
   */
  type: string;
  /** The HTTP status of an error (and of an answer, when not 200). */
  status?: number;
  /** The request, answer or error body (`kind` other than `stream`). */
  body?: unknown;
  /** A stream's events in order, each one SSE `data:` payload (or frame) parsed; `event` names ride in `eventNames` when the provider sends them. */
  events?: unknown[];
  eventNames?: string[];
  /** Anything a reader needs to know about the example (what was left out, which variant it is). */
  note?: string;
}

/** The repository's provider folders, found from this file whether it runs from src or dist. */
function adaptersDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i += 1) {
    const candidate = path.join(dir, 'packages/server/src/relay/adapters');
    if (fs.existsSync(candidate)) return candidate;
    dir = path.dirname(dir);
  }
  throw new Error('provider fixtures: packages/server/src/relay/adapters not found above the testkit');
}

const cache = new Map<string, ProviderFixture>();

/** One provider fixture by provider slug and file name (without `.json`); read once, then cloned per call. */
export function providerFixture(slug: string, name: string): ProviderFixture {
  const file = path.join(adaptersDir(), slug, 'fixtures', `${name}.json`);
  let f = cache.get(file);
  if (!f) {
    if (!fs.existsSync(file)) throw new Error(`provider fixture ${slug}/${name} not found (${file})`);
    f = JSON.parse(fs.readFileSync(file, 'utf8')) as ProviderFixture;
    cache.set(file, f);
  }
  return structuredClone(f);
}

/** The names of a provider's fixtures (without `.json`), sorted. */
export function providerFixtureNames(slug: string): string[] {
  const dir = path.join(adaptersDir(), slug, 'fixtures');
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((n) => n.endsWith('.json'))
    .map((n) => n.slice(0, -'.json'.length))
    .sort();
}
