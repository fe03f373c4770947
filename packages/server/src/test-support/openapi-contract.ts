// Validates bodies against OpenAI's published OpenAPI document, so tests can prove that every
// OpenAI-format answer ModelGate sends (passed through, written by ModelGate or converted from
// another provider) is what OpenAI's own contract promises. The YAML is read from the shared
// reference folder beside the repository, never copied into the project; when it is absent the
// callers skip their tests with `openapiSkipReason`.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import { parse } from 'yaml';

const here = dirname(fileURLToPath(import.meta.url));
// packages/server/src/test-support → repository root → ../shared/reference/…
const defaultPath = resolve(here, '../../../../../shared/reference/openai-openapi/openapi.yaml');

export const openapiPath = process.env.OPENAI_OPENAPI_PATH ?? defaultPath;
export const openapiAvailable = existsSync(openapiPath);
export const openapiSkipReason = `OpenAI OpenAPI document not found at ${openapiPath} (set OPENAI_OPENAPI_PATH)`;

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonObject = { [key: string]: Json };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

// The document is OpenAPI 3.1 (JSON Schema 2020-12) with OpenAPI 3.0 leftovers. This rewrites the
// leftovers into plain JSON Schema:
// - `nullable: true` means "or null";
// - `discriminator` is dropped and `oneOf` read as `anyOf`: the variants are told apart by their
//   `type` enums anyway, and several published unions overlap (a body matching two variants is
//   valid to OpenAI's SDKs, which try the variants in order);
// - vendor extensions (`x-…`) and OpenAPI-only keywords are left for ajv to ignore (strict: false).
function normalise(node: Json): Json {
  if (Array.isArray(node)) return node.map(normalise);
  if (!isObject(node)) return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'discriminator' || key === 'nullable') continue;
    out[key === 'oneOf' ? 'anyOf' : key] = normalise(value);
  }
  if (node.nullable !== true) return out;
  if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  if (typeof out.type === 'string') return { ...out, type: [out.type, 'null'] };
  if (Array.isArray(out.type)) return out.type.includes('null') ? out : { ...out, type: [...out.type, 'null'] };
  return { anyOf: [out, { type: 'null' }] };
}

// Places where the README beside the YAML records that the real API is looser than the schema:
// `Response.user` and `Response.usage` may be null. They are declared in the shared property
// groups the Response is made of, so they are widened there.
function applyKnownQuirks(schemas: JsonObject): void {
  const groups = ['ModelResponseProperties', 'ResponseProperties', 'Response'].map((n) => schemas[n]);
  const parts = groups.flatMap((g) => (isObject(g) && Array.isArray(g.allOf) ? [g, ...g.allOf] : [g]));
  for (const part of parts) {
    if (!isObject(part) || !isObject(part.properties)) continue;
    for (const name of ['usage', 'user']) {
      const prop = part.properties[name];
      if (prop !== undefined) part.properties[name] = { anyOf: [prop, { type: 'null' }] };
    }
  }
}

const DOC_ID = 'https://modelgate.test/openai-openapi.json';
let ajv: Ajv2020 | undefined;
const compiled = new Map<string, ValidateFunction>();

function instance(): Ajv2020 {
  if (ajv) return ajv;
  if (!openapiAvailable) throw new Error(openapiSkipReason);
  const doc = parse(readFileSync(openapiPath, 'utf8'), { maxAliasCount: -1 }) as JsonObject;
  const components = doc.components;
  if (!isObject(components) || !isObject(components.schemas)) throw new Error('openapi.yaml has no components.schemas');
  const schemas = normalise(components.schemas) as JsonObject;
  applyKnownQuirks(schemas);
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ $id: DOC_ID, components: { schemas } });
  return ajv;
}

export type SchemaName =
  | 'CreateChatCompletionResponse'
  | 'CreateChatCompletionStreamResponse'
  | 'CreateCompletionResponse'
  | 'Response'
  | 'ResponseStreamEvent'
  | 'CreateEmbeddingResponse'
  | 'ListModelsResponse'
  | 'ErrorResponse'
  | (string & {});

function validatorFor(name: SchemaName): ValidateFunction {
  let fn = compiled.get(name);
  if (!fn) {
    const a = instance();
    fn = a.compile({ $ref: `${DOC_ID}#/components/schemas/${name}` });
    compiled.set(name, fn);
  }
  return fn;
}

// ajv reports every failed branch of an anyOf; the deepest paths are the useful ones, so the
// message lists those first and caps the list.
function readable(errors: ErrorObject[]): string[] {
  const lines = errors
    .filter((e) => e.keyword !== 'anyOf')
    .map((e) => {
      const extra = e.keyword === 'additionalProperties' ? ` (${String(e.params.additionalProperty)})`
        : e.keyword === 'enum' ? ` (${JSON.stringify(e.params.allowedValues)})` : '';
      return `${e.instancePath || '/'} ${e.message ?? e.keyword}${extra}`;
    });
  const unique = [...new Set(lines)];
  unique.sort((a, b) => b.split('/').length - a.split('/').length);
  return unique.slice(0, 12);
}

/** Errors of `body` against the named component schema; an empty list means it conforms. */
export function schemaErrors(name: SchemaName, body: unknown): string[] {
  const fn = validatorFor(name);
  if (fn(body)) return [];
  return readable(fn.errors ?? []);
}

/** Throws a readable error when `body` does not satisfy the named component schema. */
export function assertConforms(name: SchemaName, body: unknown, label = name): void {
  const errors = schemaErrors(name, body);
  if (errors.length > 0) {
    throw new Error(`${label} does not satisfy ${name}:\n  ${errors.join('\n  ')}\n${JSON.stringify(body).slice(0, 800)}`);
  }
}

/** Validates every element (stream chunks or events), naming the index of the first failure. */
export function assertAllConform(name: SchemaName, bodies: readonly unknown[], label = name): void {
  bodies.forEach((body, i) => assertConforms(name, body, `${label}[${i}]`));
}
