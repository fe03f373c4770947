import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The repository documents itself: the README and docs once sent readers to a DESIGN.md that was
 * never in the repository. Every link in the docs must resolve to a file (and heading) here, and
 * every source path they name must exist, so a moved file cannot leave the docs pointing nowhere.
 */
const ROOT = path.resolve(import.meta.dirname, '../../..');
const DOCS = [
  'README.md',
  ...fs.readdirSync(path.join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...fs.readdirSync(path.join(ROOT, 'packages')).map((p) => `packages/${p}/README.md`).filter((f) => fs.existsSync(path.join(ROOT, f))),
];
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens. */
function anchors(markdown: string): Set<string> {
  const out = new Set<string>();
  for (const m of markdown.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    out.add(m[1]!.trim().toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-'));
  }
  return out;
}

/** Paths the docs write relative to a package's source (`relay/…`, `server/…`, `web/…`). */
function pathExists(p: string): boolean {
  const candidates = [p, `packages/server/src/${p}`, `packages/web/src/${p}`];
  if (p.startsWith('server/')) candidates.push(`packages/server/src/${p.slice(7)}`);
  if (p.startsWith('web/')) candidates.push(`packages/web/src/${p.slice(4)}`);
  return candidates.some((c) => fs.existsSync(path.join(ROOT, c)));
}

const SOURCE_DIRS = ['packages/shared/src', 'packages/server/src', 'packages/testkit/src', 'packages/web/src', 'e2e', 'bench', 'scripts'];
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return e.name === 'node_modules' || e.name === 'dist' ? [] : sourceFiles(rel);
    return /\.(ts|tsx|mjs|js|md|json)$/.test(e.name) ? [rel] : [];
  });
}

describe('the documentation', () => {
  it('links only to files and headings inside the repository', () => {
    const broken: string[] = [];
    for (const doc of DOCS) {
      for (const m of read(doc).matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!;
        if (/^[a-z]+:/i.test(target)) continue;
        const [file, anchor] = target.split('#') as [string, string | undefined];
        const resolved = file ? path.join(path.dirname(doc), file) : doc;
        if (!fs.existsSync(path.join(ROOT, resolved))) broken.push(`${doc}: ${target}`);
        else if (anchor && resolved.endsWith('.md') && !anchors(read(resolved)).has(anchor)) broken.push(`${doc}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('names only source paths that exist', () => {
    const missing: string[] = [];
    for (const doc of ['docs/architecture.md', 'docs/contributing.md']) {
      for (const m of read(doc).matchAll(/`([^`\s]+)`/g)) {
        const p = m[1]!;
        // Placeholders (`<name>`, NNNN), globs and build output are not paths to check.
        if (!p.includes('/') || p.startsWith('/') || /[<*]|NNNN|(^|\/)dist(\/|$)/.test(p)) continue;
        if (!/\.(ts|tsx|md|json|mjs)$|\/$/.test(p)) continue;
        if (!pathExists(p)) missing.push(`${doc}: ${p}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('never cites a design document outside the repository', () => {
    const files = [...DOCS, ...SOURCE_DIRS.flatMap(sourceFiles)].filter((f) => !f.endsWith('repo-docs.test.ts'));
    // `DESIGN.md`, `DESIGN §9`: the notes the project was started from, which the repository lacks.
    expect(files.filter((f) => /\bDESIGN(\.md|\s*§)/.test(read(f)))).toEqual([]);
  });

  it('docs/settings.md is generated from the console sections as they are now', () => {
    const run = spawnSync(process.execPath, [path.join(ROOT, 'scripts/settings-doc.mjs'), '--check'], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });
});
