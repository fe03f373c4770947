#!/usr/bin/env node
// Prints, for each console route, the JavaScript a fresh load of that route fetches, gzipped, from
// the manifest `vite build` writes (build.manifest); exits 1 when /login goes over its budget.
// Run by the web package's `build` script after `vite build`; alone:
//
//   node scripts/bundle-report.mjs [distDir]     (default: packages/web/dist)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';

/** Everything the browser fetches to show /login must stay under this, gzipped (issue 11). */
export const LOGIN_BUDGET_BYTES = 300 * 1024;

/** Parts of the shell that only signed-in users get (app-layout.tsx, header-actions.tsx). */
export const SIGNED_IN_SHELL = ['src/app/layout/side-nav.tsx', 'src/app/layout/user-menu.tsx'];

const webRoot = path.resolve(import.meta.dirname, '..');

/**
 * Screen folder → the paths that render it, the translation namespaces fetched with it, and
 * whether it is behind `<RequireUser />`, read from the route table (src/app/router.tsx), whose
 * lines each name one screen:
 * `{ path: 'token', lazy: screen(() => import('../features/token'), ['token']) }`; `index: true` is `/`.
 */
export function routeScreens(routerSource) {
  const screens = new Map();
  let depth = 0;
  let guardDepth = Infinity;
  for (const line of routerSource.split('\n')) {
    if (line.includes('<RequireUser />') && guardDepth === Infinity) guardDepth = depth;
    const feature = /import\(['"]\.\.\/features\/([^'"/]+)['"]\)/.exec(line)?.[1];
    if (feature) {
      const path = /path:\s*['"]([^'"]*)['"]/.exec(line)?.[1];
      const found = path === undefined ? (/index:\s*true/.test(line) ? '/' : undefined) : path === '*' ? '*' : `/${path}`;
      const listed = /import\([^)]*\)\s*,\s*\[([^\]]*)\]/.exec(line)?.[1] ?? '';
      const screen = screens.get(feature) ?? { paths: [], namespaces: [], signedIn: false };
      if (found) screen.paths.push(found);
      screen.namespaces = [...new Set([...screen.namespaces, ...[...listed.matchAll(/['"]([^'"]+)['"]/g)].map((m) => m[1])])];
      screen.signedIn ||= depth >= guardDepth;
      screens.set(feature, screen);
    }
    depth += (line.match(/[[{]/g) ?? []).length - (line.match(/[\]}]/g) ?? []).length;
    if (depth < guardDepth) guardDepth = Infinity;
  }
  return screens;
}

/** The manifest keys of `key` and of every chunk it imports statically, transitively. */
export function staticClosure(manifest, key, into = new Set()) {
  if (into.has(key)) return into;
  const chunk = manifest[key];
  if (!chunk) throw new Error(`the manifest has no chunk ${key}`);
  into.add(key);
  for (const dep of chunk.imports ?? []) staticClosure(manifest, dep, into);
  return into;
}

/**
 * The report: one row per screen with the files a fresh load of its route fetches (entry closure
 * ∪ screen closure ∪ its translations in `lang` ∪ the signed-in shell parts for guarded screens)
 * and their raw and gzipped bytes; then the chunks the shell fetches only on demand.
 * `size(file)` gives [raw, gzip] bytes of an output file.
 */
export function bundleReport(manifest, screens, size, lang = 'zh') {
  const entries = Object.keys(manifest).filter((key) => manifest[key].isEntry);
  if (entries.length !== 1) throw new Error(`expected one entry in the manifest, found ${entries.length}`);
  const entry = staticClosure(manifest, entries[0]);
  const total = (keys) => [...new Set([...keys].map((k) => manifest[k].file))].map(size).reduce(([r, g], [a, b]) => [r + a, g + b], [0, 0]);
  const beyondEntry = (keys) => [...keys].filter((k) => !entry.has(k));
  const rows = [];
  for (const key of Object.keys(manifest)) {
    const feature = /^src\/features\/([^/]+)\/index\.tsx?$/.exec(key)?.[1];
    if (!feature || !manifest[key].isDynamicEntry) continue;
    const { paths = [], namespaces = [], signedIn = false } = screens.get(feature) ?? {};
    const own = staticClosure(manifest, key);
    for (const ns of namespaces) staticClosure(manifest, `src/i18n/${lang}/${ns}.json`, own);
    const shell = new Set();
    if (signedIn) for (const part of SIGNED_IN_SHELL.filter((k) => manifest[k])) staticClosure(manifest, part, shell);
    const all = new Set([...entry, ...own, ...shell]);
    const [raw, gzip] = total(all);
    rows.push({ feature, paths, signedIn, files: new Set([...all].map((k) => manifest[k].file)).size, raw, gzip, screenGzip: total(beyondEntry(own))[1] });
  }
  rows.sort((a, b) => (a.paths[0] ?? '~').localeCompare(b.paths[0] ?? '~') || a.feature.localeCompare(b.feature));
  const onDemand = (manifest[entries[0]].dynamicImports ?? [])
    .filter((key) => !/^src\/(features|i18n)\//.test(key))
    .map((key) => ({ key: manifest[key].src ?? `${manifest[key].name ?? key} (shared chunk)`, gzip: total(beyondEntry(staticClosure(manifest, key)))[1] }));
  const [raw, gzip] = total(entry);
  return { rows, entry: { files: new Set([...entry].map((k) => manifest[k].file)).size, raw, gzip }, onDemand };
}

const kb = (bytes) => (bytes / 1024).toFixed(1);

function table(head, body) {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells) => cells.map((c, i) => (i < 2 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join('  ').trimEnd();
  return [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(line)].join('\n');
}

export function formatReport({ rows, entry, onDemand }) {
  const routes = table(
    ['route', 'screen', 'files', 'raw KB', 'gzip KB', 'screen gzip KB'],
    [
      ...rows.map((r) => [r.paths.join(' ') || '-', r.feature + (r.signedIn ? ' *' : ''), String(r.files), kb(r.raw), kb(r.gzip), kb(r.screenGzip)]),
      ['(entry alone)', '-', String(entry.files), kb(entry.raw), kb(entry.gzip), '-'],
    ],
  );
  const extra = table(
    ['fetched by the shell on demand', '', 'gzip KB'],
    onDemand.map((d) => [d.key, '', kb(d.gzip)]),
  );
  return [
    'Console bundle: the JavaScript a fresh load of each route fetches: the entry and its static imports,',
    "the screen's chunk and its static imports, its zh translations; KB = 1024 bytes, gzip level 9.",
    `* signed in: the total includes ${SIGNED_IN_SHELL.map((k) => path.basename(k, '.tsx')).join(' and ')}. "screen gzip" is what the screen adds to the entry.`,
    '',
    routes,
    '',
    extra,
  ].join('\n');
}

function main() {
  const dist = path.resolve(process.argv[2] ?? path.join(webRoot, 'dist'));
  const manifest = JSON.parse(readFileSync(path.join(dist, '.vite/manifest.json'), 'utf8'));
  const screens = routeScreens(readFileSync(path.join(webRoot, 'src/app/router.tsx'), 'utf8'));
  const cache = new Map();
  const size = (file) => {
    if (!cache.has(file)) {
      const bytes = readFileSync(path.join(dist, file));
      cache.set(file, [bytes.length, gzipSync(bytes, { level: 9 }).length]);
    }
    return cache.get(file);
  };
  const report = bundleReport(manifest, screens, size);
  console.log(`\n${formatReport(report)}\n`);
  const login = report.rows.find((r) => r.feature === 'login');
  if (!login) {
    console.error('bundle report: no lazy chunk for src/features/login in the manifest');
    process.exit(1);
  }
  const over = login.gzip > LOGIN_BUDGET_BYTES;
  console.log(`/login: ${kb(login.gzip)} KB gzipped of its ${kb(LOGIN_BUDGET_BYTES)} KB budget: ${over ? 'OVER BUDGET' : 'within budget'}\n`);
  if (over) process.exit(1);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
