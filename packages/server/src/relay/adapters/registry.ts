import { adapter as anthropic } from './anthropic/adapter.js';
import { adapter as baidu } from './baidu/adapter.js';
import { adapter as ali } from './ali/adapter.js';
import { adapter as tencent } from './tencent/adapter.js';
import { adapter as spark } from './spark/adapter.js';
import { adapter as aiproxyLibrary } from './aiproxy-library/adapter.js';
import { adapter as azure } from './azure/adapter.js';
import { adapter as cloudflare } from './cloudflare/adapter.js';
import { adapter as bedrock } from './bedrock/adapter.js';
import { adapter as cohere } from './cohere/adapter.js';
import { adapter as custom } from './custom/adapter.js';
import { adapter as dify } from './dify/adapter.js';
import { adapter as gemini } from './gemini/adapter.js';
import { adapter as ollama } from './ollama/adapter.js';
import { adapter as openai } from './openai/adapter.js';
import { adapter as palm } from './palm/adapter.js';
import { adapter as vertex } from './vertex/adapter.js';
import { adapters as vendors } from './openai-compatible/adapter.js';
import { adapters as zhipu } from './zhipu/adapter.js';
import type { Adapter } from './types.js';

/** Channel type → adapter: the one registration point. */
export const ADAPTERS: readonly Adapter[] = [openai, azure, custom, ollama, anthropic, gemini, bedrock, vertex, cohere, cloudflare, palm, dify, ...zhipu, baidu, ali, tencent, spark, aiproxyLibrary, ...vendors];

/** The contract version every registered adapter implements. */
export const CONTRACT_VERSION = 2;

const BY_TYPE = new Map<number, Adapter>();
for (const a of ADAPTERS) {
  if (a.contract !== CONTRACT_VERSION) throw new Error(`adapter ${a.slug} implements contract ${String(a.contract)}, not ${CONTRACT_VERSION}`);
  for (const t of a.types) {
    if (BY_TYPE.has(t)) throw new Error(`channel type ${t} registered twice`);
    BY_TYPE.set(t, a);
  }
}

export function adapterFor(type: number): Adapter | undefined {
  return BY_TYPE.get(type);
}

/** Channel type → built-in model list, for `GET /api/models`. */
export function modelsByType(): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const a of ADAPTERS) for (const t of a.types) out[String(t)] = [...a.models];
  return out;
}

/** Every built-in model name once, for `GET /api/channel/models`. */
export function allBuiltinModels(): string[] {
  const seen = new Set<string>();
  for (const a of ADAPTERS) for (const m of a.models) seen.add(m);
  return [...seen];
}
