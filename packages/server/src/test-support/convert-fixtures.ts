import { readFileSync } from 'node:fs';
import type { ConvertContext } from '../relay/formats/types.js';

/** A conversion context for converter tests: English, the given upstream model, an empty dropped list. */
export function testContext(model: string, over: Partial<ConvertContext> = {}): ConvertContext {
  return { lang: 'en', model, callerModel: model, clientWantsUsage: false, requestId: 'req-test-1', stream: false, dropped: [], ...over };
}

/** The body of a recorded agent request (relay/formats/fixtures/agents/<agent>/<name>.json). */
export function agentBody(agent: 'claude-code' | 'codex', name: string): Record<string, unknown> {
  const url = new URL(`../relay/formats/fixtures/agents/${agent}/${name}.json`, import.meta.url);
  return (JSON.parse(readFileSync(url, 'utf8')) as { body: Record<string, unknown> }).body;
}
