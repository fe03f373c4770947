import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * docs/architecture.md: modules receive what they use and import each other without a loop. A loop
 * (type-only imports included) means two modules cannot be understood, tested or moved apart; the
 * usual cause is a service asking for the whole application context that is itself built from it.
 */
const repo = path.resolve(import.meta.dirname, '../../..');
const roots = ['packages/shared/src', 'packages/testkit/src', 'packages/server/src', 'packages/web/src'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(p));
    else if (/\.tsx?$/.test(e.name) && !/\.test\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

function resolveLocal(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(from), spec).replace(/\.js$/, '');
  return [`${base}.ts`, `${base}.tsx`, path.join(base, 'index.ts'), path.join(base, 'index.tsx')].find((c) => fs.existsSync(c));
}

/** Every import and re-export, `import type` included, as read by the TypeScript scanner. */
function importGraph(files: string[]): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const info = ts.preProcessFile(fs.readFileSync(f, 'utf8'), true, true);
    graph.set(
      f,
      info.importedFiles.map((i) => resolveLocal(f, i.fileName)).filter((x): x is string => x !== undefined),
    );
  }
  return graph;
}

/** Strongly connected components with more than one file (Tarjan), or a file importing itself. */
function loops(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const scc: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        scc.push(w);
      } while (w !== v);
      if (scc.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(scc.map((x) => path.relative(repo, x)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('import graph', () => {
  it('finds a loop when there is one (the check itself works)', () => {
    const g = new Map([
      ['/a.ts', ['/b.ts']],
      ['/b.ts', ['/c.ts']],
      ['/c.ts', ['/a.ts']],
      ['/d.ts', ['/a.ts']],
    ]);
    expect(loops(g)).toEqual([['/a.ts', '/b.ts', '/c.ts'].map((p) => path.relative(repo, p))]);
  });

  it.each(roots)('%s has no import loop, type-only imports included', (root) => {
    const graph = importGraph(sourceFiles(path.join(repo, root)));
    expect(graph.size).toBeGreaterThan(5);
    expect(loops(graph)).toEqual([]);
  });
});

describe('dependencies', () => {
  /** Files allowed to hold the whole application context: the composition root. */
  const ROOT_FILES = new Set(['context.ts', 'create-context.ts', 'app.ts', 'main.ts']);

  it('only the composition root takes the whole context; everything else asks for a Pick of it or its own deps', () => {
    const server = path.join(repo, 'packages/server/src');
    const offenders: string[] = [];
    for (const f of sourceFiles(server)) {
      const rel = path.relative(server, f);
      if (rel.startsWith('test-support') || ROOT_FILES.has(rel)) continue;
      const src = fs.readFileSync(f, 'utf8').replace(/Pick<AppContext,/g, '').replace(/import type \{ AppContext \} from '[^']+';/g, '');
      if (/\bAppContext\b/.test(src)) offenders.push(rel);
    }
    expect(offenders).toEqual([]);
  });
});
