import { isObj } from '../../../../formats/shared/wire.js';
import { camelize } from './camel.js';

function parts(content: unknown): Array<Record<string, unknown>> {
  return isObj(content) && Array.isArray(content.parts) ? content.parts.filter(isObj) : [];
}

/**
 * A Gemini body in the OpenAI chat shape the local counter reads (billing/token-counter.ts): for
 * sizing a reservation and for counting when the upstream reports no usage.
 */
export function geminiPromptAsChat(raw: Record<string, unknown>): Record<string, unknown> {
  const body = camelize(raw) as Record<string, unknown>;
  const messages: Array<Record<string, unknown>> = [];
  const system = parts(body.systemInstruction).map((p) => (typeof p.text === 'string' ? p.text : '')).join('\n');
  if (system) messages.push({ role: 'system', content: system });
  for (const c of Array.isArray(body.contents) ? body.contents.filter(isObj) : []) {
    const content = parts(c).map((p) => {
      if (typeof p.text === 'string') return { type: 'text', text: p.text };
      if (isObj(p.inlineData) || isObj(p.fileData)) return { type: 'image_url' };
      if (isObj(p.functionCall)) return { type: 'text', text: `${String(p.functionCall.name ?? '')}${JSON.stringify(p.functionCall.args ?? {})}` };
      if (isObj(p.functionResponse)) return { type: 'text', text: JSON.stringify(p.functionResponse.response ?? {}) };
      return { type: 'text', text: '' };
    });
    messages.push({ role: c.role === 'model' ? 'assistant' : 'user', content });
  }
  const tools = Array.isArray(body.tools) ? body.tools.filter(isObj).flatMap((t) => (Array.isArray(t.functionDeclarations) ? t.functionDeclarations : [])) : [];
  return { messages, tools: tools.length ? tools : undefined };
}
