import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { VideoProvider, VideoProviderModule } from './video-types.js';

/**
 * Channel type → video provider, filled by the provider folders themselves: every folder under
 * `relay/adapters/` with a `video` module (`video.ts` from source, `video.js` in dist) exports
 * `videoProviders`. A chat provider that also makes videos (Gemini and Vertex: Veo) keeps its video
 * module in its own folder beside its adapter; a video-only upstream (Kling, Vidu, …) is a folder
 * with only that. As with adapters/registry.ts, discovery is a directory read and dynamic imports,
 * memoised, sorted by folder name, so nothing outside a folder names it.
 */
const ADAPTERS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../adapters');
const EXT = path.extname(fileURLToPath(import.meta.url));

let loaded: ReadonlyMap<number, VideoProvider> | undefined;
let loading: Promise<ReadonlyMap<number, VideoProvider>> | undefined;

/** The folders that hold a video module, sorted by name. */
export function videoFolders(): string[] {
  return fs
    .readdirSync(ADAPTERS, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(ADAPTERS, e.name, `video${EXT}`)))
    .map((e) => e.name)
    .sort();
}

function isVideoModule(m: unknown): m is VideoProviderModule {
  return typeof m === 'object' && m !== null && Array.isArray((m as { videoProviders?: unknown }).videoProviders);
}

async function load(): Promise<ReadonlyMap<number, VideoProvider>> {
  const byType = new Map<number, VideoProvider>();
  for (const folder of videoFolders()) {
    const mod: unknown = await import(pathToFileURL(path.join(ADAPTERS, folder, `video${EXT}`)).href);
    if (!isVideoModule(mod)) throw new Error(`relay/adapters/${folder}/video${EXT} must export \`videoProviders\``);
    for (const p of mod.videoProviders) {
      for (const t of p.types) {
        if (byType.has(t)) throw new Error(`video channel type ${t} registered twice (${byType.get(t)!.slug}, ${p.slug})`);
        byType.set(t, p);
      }
    }
  }
  loaded = byType;
  return byType;
}

/** Every video provider by channel type, loaded once. */
export function loadVideoProviders(): Promise<ReadonlyMap<number, VideoProvider>> {
  if (loaded) return Promise.resolve(loaded);
  loading ??= load();
  return loading;
}

/** The provider of a channel type, once loaded (undefined before the load or for a type that makes no videos). */
export function videoProviderFor(type: number): VideoProvider | undefined {
  return loaded?.get(type);
}

/** The channel types that make videos (the video task kind's types), once loaded. */
export function videoTypes(): number[] {
  return [...(loaded?.keys() ?? [])].sort((a, b) => a - b);
}
