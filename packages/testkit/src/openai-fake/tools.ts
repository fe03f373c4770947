import { isRecord, messageText } from './util.js';

/** Arguments of every fake tool call; streamed in chunkCount fragments. */
export const FAKE_TOOL_ARGUMENTS = '{"location":"San Francisco, CA","unit":"celsius"}';

function toolNames(tools: unknown): string[] {
  if (!Array.isArray(tools)) return [];
  const names: string[] = [];
  for (const tool of tools) {
    if (isRecord(tool) && isRecord(tool.function) && typeof tool.function.name === 'string') {
      names.push(tool.function.name);
    }
  }
  return names;
}

function lastUserText(messages: unknown): string {
  if (!Array.isArray(messages)) return '';
  for (let i = messages.length - 1; i >= 0; i -= 1) {
    const message: unknown = messages[i];
    if (isRecord(message) && message.role === 'user') return messageText(message.content);
  }
  return '';
}

/**
 * Which function the fake calls for a chat request, or null for a text reply. A call is made
 * when the request has `tools` and either `tool_choice` forces one (a named function, or
 * "required" → the first tool) or, unless `tool_choice` is "none", the last user message mentions
 * "weather" and no tool result came back after it (→ the first tool whose name contains
 * "weather", else the first tool).
 */
export function chooseToolCall(body: unknown): { name: string } | null {
  if (!isRecord(body)) return null;
  const names = toolNames(body.tools);
  if (names.length === 0) return null;
  const choice = body.tool_choice;
  if (isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === 'string') {
    return { name: choice.function.name };
  }
  if (choice === 'none') return null;
  if (choice === 'required') return { name: names[0] };
  // A tool result just came back: the model answers it instead of calling again.
  const last: unknown = Array.isArray(body.messages) ? body.messages.at(-1) : undefined;
  if (isRecord(last) && last.role === 'tool') return null;
  if (!/\bweather\b/iu.test(lastUserText(body.messages))) return null;
  return { name: names.find((n) => n.toLowerCase().includes('weather')) ?? names[0] };
}

/** `text` cut into exactly `parts` consecutive fragments (trailing ones empty when text is short). */
export function splitInto(text: string, parts: number): string[] {
  const size = Math.ceil(text.length / parts);
  return Array.from({ length: parts }, (_, i) => text.slice(i * size, (i + 1) * size));
}
