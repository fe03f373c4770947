import { isObj } from '../../../../formats/shared/wire.js';

/** Fields whose values are the caller's own data (schemas, arguments, results): their keys are kept as they are. */
const OPAQUE = new Set(['args', 'response', 'parameters', 'parametersJsonSchema', 'responseSchema', 'responseJsonSchema', 'labels']);

const toCamel = (k: string) => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/**
 * A Gemini body with every field name in camelCase: the API takes snake_case too (the reference
 * sends `generation_config`, `inline_data`, …), so converters read one spelling. Schemas, function
 * arguments and function results are the caller's data and keep their keys.
 */
export function camelize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(camelize);
  if (!isObj(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = toCamel(k);
    out[key] = OPAQUE.has(key) ? v : camelize(v);
  }
  return out;
}
