import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonShapeProblem, type JsonShapeLimits } from './json-shape.js';

const bytes = (s: string) => Buffer.from(s, 'utf8');

/** The same judgement the slow way: walk the parsed value. */
function measured(v: unknown, depth = 0): { depth: number; items: number } {
  if (v === null || typeof v !== 'object') return { depth, items: 0 };
  const children = Array.isArray(v) ? v : Object.values(v);
  let out = { depth: depth + 1, items: Array.isArray(v) ? v.length : 0 };
  for (const c of children) {
    const m = measured(c, depth + 1);
    out = { depth: Math.max(out.depth, m.depth), items: Math.max(out.items, m.items) };
  }
  return out;
}

function expected(v: unknown, limits: JsonShapeLimits): 'depth' | 'array' | null {
  const m = measured(v);
  if (m.depth > limits.maxDepth) return 'depth';
  if (m.items > limits.maxArrayItems) return 'array';
  return null;
}

describe('jsonShapeProblem (a linear scan before JSON.parse)', () => {
  const limits = { maxDepth: 4, maxArrayItems: 3 };

  it('counts nesting and array elements outside strings only', () => {
    expect(jsonShapeProblem(bytes('[[[[1]]]]'), limits)).toBeNull();
    expect(jsonShapeProblem(bytes('[[[[[1]]]]]'), limits)).toEqual({ kind: 'depth', limit: 4 });
    expect(jsonShapeProblem(bytes('{"a":{"b":{"c":{"d":{}}}}}'), limits)).toEqual({ kind: 'depth', limit: 4 });
    expect(jsonShapeProblem(bytes('[1,2,3]'), limits)).toBeNull();
    expect(jsonShapeProblem(bytes('[1,2,3,4]'), limits)).toEqual({ kind: 'array', limit: 3 });
    // Commas of an object are not elements; an array's count restarts in each array.
    expect(jsonShapeProblem(bytes('{"a":1,"b":2,"c":3,"d":4}'), limits)).toBeNull();
    expect(jsonShapeProblem(bytes('[[1,2,3],[1,2,3],[1,2,3]]'), limits)).toBeNull();
    // Brackets, commas and escaped quotes inside strings are text.
    expect(jsonShapeProblem(bytes('["[[[[[[,,,,,", "\\"[[[[[[[", "\\\\{{{{{{"]'), limits)).toBeNull();
    expect(jsonShapeProblem(bytes('["\\\\\\"[[[[[["]'), limits)).toBeNull();
    // Malformed text is the parser's to word: an unterminated string ends the scan.
    expect(jsonShapeProblem(bytes('["abc'), limits)).toBeNull();
    expect(jsonShapeProblem(bytes(']]]]]'), limits)).toBeNull();
    // Multi-byte UTF-8 never looks like a quote or a bracket.
    expect(jsonShapeProblem(bytes('["日本語","💥","\u00ff["]'), limits)).toBeNull();
  });

  it('agrees with a walk over the parsed value, for any JSON (10 000 cases)', () => {
    const seed = Number(process.env.FUZZ_SEED ?? 2222);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 7 }), fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 5 }), (v, maxDepth, maxArrayItems) => {
        const l = { maxDepth, maxArrayItems };
        const got = jsonShapeProblem(bytes(JSON.stringify(v)), l);
        const want = expected(v, l);
        // When both limits break, the scan reports whichever comes first in the text.
        if (want === null) expect(got).toBeNull();
        else expect(got).not.toBeNull();
        if (got) expect(expected(v, got.kind === 'depth' ? { maxDepth, maxArrayItems: Infinity } : { maxDepth: Infinity, maxArrayItems })).toBe(got.kind);
      }),
      { numRuns: 10_000, seed },
    );
  });

  it('a 20 MB body of base64 image text passes (string contents are jumped over)', () => {
    const body = bytes(JSON.stringify({ model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${'A'.repeat(20 * 1024 * 1024)}` } }] }] }));
    expect(jsonShapeProblem(body, { maxDepth: 128, maxArrayItems: 200_000 })).toBeNull();
  });
});
