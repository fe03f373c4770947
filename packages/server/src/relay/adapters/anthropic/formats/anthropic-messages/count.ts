import { isObj, plainText } from '../../../../formats/shared/wire.js';

/**
 * A Messages body in the OpenAI chat shape the local counter reads (billing/token-counter.ts):
 * only for counting a prompt when the upstream reports no usage or a reservation must be sized.
 */
export function messagesPromptAsChat(body: Record<string, unknown>): Record<string, unknown> {
  const messages: Array<Record<string, unknown>> = [];
  const system = plainText(body.system);
  if (system) messages.push({ role: 'system', content: system });
  for (const raw of Array.isArray(body.messages) ? body.messages : []) {
    const m = isObj(raw) ? raw : {};
    if (typeof m.content === 'string') {
      messages.push({ role: m.role, content: m.content });
      continue;
    }
    const parts: Array<Record<string, unknown>> = [];
    for (const b of Array.isArray(m.content) ? m.content : []) {
      if (!isObj(b)) continue;
      if (b.type === 'image' || b.type === 'document') parts.push({ type: 'image_url' });
      else if (b.type === 'tool_use') parts.push({ type: 'text', text: `${String(b.name ?? '')}${JSON.stringify(b.input ?? {})}` });
      else if (b.type === 'tool_result') parts.push({ type: 'text', text: typeof b.content === 'string' ? b.content : plainText(b.content) });
      else if (typeof b.text === 'string') parts.push({ type: 'text', text: b.text });
      else if (typeof b.thinking === 'string') parts.push({ type: 'text', text: b.thinking });
    }
    messages.push({ role: m.role, content: parts });
  }
  return { messages, tools: body.tools };
}
