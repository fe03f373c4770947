import fc from 'fast-check';
import { z } from 'zod';

/**
 * fast-check arbitraries derived from the shared zod contracts (through their JSON Schema, the
 * same one the OpenAPI document shows), for the property tests of issue 22 item 5: values shaped
 * like a valid request, and the same values mutated into every kind of wrong.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Schema = Record<string, unknown>;

/** Short strings are the interesting ones; long ones come from the mutations. */
const MAX_ITEMS = 4;

/** Any JSON value, small (cheap scalars most of the time: generating values is most of a fuzz run's cost). */
export const anyJson: fc.Arbitrary<Json> = fc.oneof(
  { arbitrary: fc.constantFrom<Json>(null, true, false, 0, -1, 1.5, '', 'x', [], {}), weight: 2 },
  { arbitrary: fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json>, weight: 1 },
);

function numberBound(s: Schema, key: 'minimum' | 'maximum', fallback: number): number {
  const v = s[key];
  return typeof v === 'number' && Number.isFinite(v) ? v : fallback;
}

function fromSchema(s: Schema | boolean | undefined, defs: Record<string, Schema>, depth: number): fc.Arbitrary<Json> {
  if (s === undefined || s === true || depth > 6) return anyJson;
  if (s === false) return fc.constant(null);
  if (typeof s.$ref === 'string') {
    const name = s.$ref.replace(/^#\/\$defs\//, '');
    return fromSchema(defs[name], defs, depth + 1);
  }
  if ('const' in s) return fc.constant(s.const as Json);
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as Json[]));
  const alternatives = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (Array.isArray(alternatives)) return fc.oneof(...alternatives.map((a) => fromSchema(a, defs, depth + 1)));
  if (Array.isArray(s.allOf) && s.allOf.length) return fromSchema(s.allOf[0] as Schema, defs, depth + 1);
  if (Array.isArray(s.type)) return fc.oneof(...(s.type as string[]).map((t) => fromSchema({ ...s, type: t }, defs, depth + 1)));
  switch (s.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const min = Math.max(numberBound(s, 'minimum', -1000), Number.MIN_SAFE_INTEGER);
      const max = Math.min(numberBound(s, 'maximum', 100_000), Number.MAX_SAFE_INTEGER);
      const lo = typeof s.exclusiveMinimum === 'number' ? s.exclusiveMinimum + 1 : min;
      // Small values most of the time (ids, pages), the bounds themselves sometimes.
      const small = fc.integer({ min: Math.max(lo, Math.min(max, -3)), max: Math.min(max, Math.max(lo, 50)) });
      return fc.oneof({ arbitrary: small, weight: 4 }, { arbitrary: fc.constantFrom(lo, max), weight: 1 });
    }
    case 'number':
      return fc.double({ min: numberBound(s, 'minimum', -1e6), max: numberBound(s, 'maximum', 1e6), noNaN: true, noDefaultInfinity: true });
    case 'string': {
      if (s.format === 'binary') return fc.string({ maxLength: 16 });
      const minLength = typeof s.minLength === 'number' ? s.minLength : 0;
      const maxLength = Math.max(minLength, Math.min(typeof s.maxLength === 'number' ? s.maxLength : 24, 24));
      return fc.string({ minLength, maxLength, unit: 'grapheme-ascii' });
    }
    case 'array': {
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0;
      const maxLength = Math.max(minLength, Math.min(typeof s.maxItems === 'number' ? s.maxItems : MAX_ITEMS, MAX_ITEMS));
      return fc.array(fromSchema(s.items as Schema, defs, depth + 1), { minLength, maxLength });
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, Schema>;
      const required = new Set((s.required ?? []) as string[]);
      const model: Record<string, fc.Arbitrary<Json>> = {};
      for (const [k, v] of Object.entries(props)) model[k] = fromSchema(v, defs, depth + 1);
      return fc.record(model, { requiredKeys: [...required].filter((k) => k in props) }) as fc.Arbitrary<Json>;
    }
    default:
      return anyJson;
  }
}

/** Values shaped like `schema`'s input (they may still fail its refinements: names, lengths, cross-field rules). */
export function schemaArbitrary(schema: z.ZodType): fc.Arbitrary<Json> {
  const js = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as Schema & { $defs?: Record<string, Schema> };
  return fromSchema(js, js.$defs ?? {}, 0);
}

/** What a hostile or careless client puts in a field. */
const hostile: fc.Arbitrary<Json> = fc.oneof(
  anyJson,
  fc.constantFrom<Json>('', ' ', '\u0000', 'a\u0000b', '\u202e', '💥'.repeat(3), '-1', '1e400', 'NaN', 'null', 'true', '[]', '{}', '__proto__', '../../etc/passwd', "' OR 1=1 --", '<script>window.__xss=1</script>'),
  fc.constantFrom<Json>(-1, 0, -0, 1.5, 2 ** 31, 2 ** 53, 2 ** 63, -(2 ** 63), 1e308, -1e308, Number.MAX_SAFE_INTEGER + 2),
  // Long values built from a few choices: generating thousands of arbitrary characters costs more than the request.
  fc.tuple(fc.constantFrom('a', '💥', '\u0000', '<', '%'), fc.integer({ min: 1000, max: 5000 })).map(([c, n]) => c.repeat(n)),
  fc.integer({ min: 50, max: 200 }).map((n) => Array.from({ length: n }, (_, i) => i)),
  fc.integer({ min: 10, max: 40 }).map((d) => {
    let v: Json = 1;
    for (let i = 0; i < d; i++) v = i % 2 ? { a: v } : [v];
    return v;
  }),
);

type Mutation = { kind: 'drop' | 'replace' | 'add'; at: number; key: string; value: Json };

function mutate(value: Json, m: Mutation): Json {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return m.kind === 'add' ? m.value : value;
  const keys = Object.keys(value);
  const out: Record<string, Json> = { ...value };
  const target = keys.length ? keys[m.at % keys.length]! : m.key;
  if (m.kind === 'drop' && keys.length) delete out[target];
  else if (m.kind === 'replace') out[target] = m.value;
  else Object.defineProperty(out, m.key, { value: m.value, enumerable: true, configurable: true, writable: true });
  return out;
}

const mutationArb: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom<Mutation['kind']>('drop', 'replace', 'add'),
  at: fc.nat(),
  key: fc.oneof(fc.constantFrom('__proto__', 'constructor', 'prototype', 'id', 'user_id', 'quota', 'role', ''), fc.string({ maxLength: 8 })),
  value: hostile,
});

/** A schema-shaped value with 0–3 mutations (a dropped field, a wrong value, an extra key), or something else entirely. */
export function mutatedArbitrary(schema: z.ZodType | undefined): fc.Arbitrary<Json> {
  const base = schema ? schemaArbitrary(schema) : fc.constant<Json>({});
  const mutated = fc.tuple(base, fc.array(mutationArb, { maxLength: 3 })).map(([v, ms]) => ms.reduce(mutate, v));
  return fc.oneof({ arbitrary: base, weight: 2 }, { arbitrary: mutated, weight: 5 }, { arbitrary: hostile, weight: 1 });
}

/** The first value of `arb` (fixed seed) that `schema` accepts, else the first one: a "minimal valid-ish" request part. */
export function validSample(schema: z.ZodType, seed = 42): Json {
  const samples = fc.sample(schemaArbitrary(schema), { seed, numRuns: 60 });
  return samples.find((v) => schema.safeParse(v).success) ?? samples[0] ?? {};
}

/** A query string of a value (objects become their JSON text, like a careless client would send). */
export function toQuery(v: Json): string {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return '';
  const q = new URLSearchParams();
  for (const [k, x] of Object.entries(v)) {
    if (x === null || x === undefined) continue;
    q.append(k, typeof x === 'object' ? JSON.stringify(x) : String(x));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}
