import { drop, isObj, unsupported } from '../shared/wire.js';
import type { ConvertContext } from '../types.js';

/**
 * The tools of a Responses request as chat function tools (docs/providers.md "Conversion policy",
 * Responses → OpenAI chat). Function tools map as they are; a `custom` tool (free-form input such
 * as Codex's `apply_patch`) becomes a function with one string parameter `input`, its grammar in
 * the description; `namespace` tools are flattened; tools also come from `additional_tools` input
 * items. Built-in tools (web search, file search, tool search, code interpreter, …) run only on
 * OpenAI's Responses API: left out with a note. The replies (response.ts, stream.ts) read the same
 * table to give the caller back the tool kind it declared (`custom_tool_call` for a custom tool).
 */
type Msg = Record<string, unknown>;

export interface ToolEntry {
  kind: 'function' | 'custom';
  /** The name the caller declared. */
  name: string;
  namespace?: string;
  /** The namespace's description, told to the model in the tool's own. */
  namespaceNote?: string;
  /** The name sent upstream (unique among the chat tools). */
  chatName: string;
  def: Msg;
}

export interface ToolTable {
  entries: ToolEntry[];
  /** chat name → entry */
  byChatName: Map<string, ToolEntry>;
}

/** Every tool the request declares: `tools` first, then those of `additional_tools` (and `tool_search_output`) items. */
function declared(body: Msg): Array<{ def: unknown; where: string }> {
  const out: Array<{ def: unknown; where: string }> = [];
  (Array.isArray(body.tools) ? body.tools : []).forEach((def, i) => out.push({ def, where: `tools.${i}` }));
  (Array.isArray(body.input) ? body.input : []).forEach((item, i) => {
    if (isObj(item) && (item.type === 'additional_tools' || item.type === 'tool_search_output') && Array.isArray(item.tools)) {
      item.tools.forEach((def, j) => out.push({ def, where: `input.${i}.tools.${j}` }));
    }
  });
  return out;
}

const safeName = (s: string) => s.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);

/**
 * The table of callable tools. With `cx` (the request side) left-out tools are noted and a tool
 * choice forcing one refuses the request; without it (the reply side) it is only read.
 */
export function toolTable(body: Msg, cx?: ConvertContext): ToolTable {
  const raw: Array<Omit<ToolEntry, 'chatName'>> = [];
  const forced = isObj(body.tool_choice) && typeof body.tool_choice.type === 'string' ? body.tool_choice.type : undefined;
  const add = (def: unknown, where: string, ns?: { name: string; note?: string }): void => {
    const t = isObj(def) ? def : {};
    if ((t.type === 'function' || t.type === 'custom') && typeof t.name === 'string' && t.name) {
      raw.push({ kind: t.type, name: t.name, namespace: ns?.name, namespaceNote: ns?.note, def: t });
    } else if (t.type === 'namespace' && Array.isArray(t.tools) && typeof t.name === 'string') {
      const inner = { name: t.name, note: typeof t.description === 'string' && t.description ? `[${t.name}] ${t.description}\n\n` : undefined };
      t.tools.forEach((d, k) => add(d, `${where}.tools.${k}`, inner));
    } else if (cx) {
      if (forced !== undefined && forced === t.type) throw unsupported(cx.lang, 'tool_choice', `forces built-in tool "${String(t.type)}", which runs only on OpenAI's Responses API`);
      drop(cx, `${where}(${String(t.type)})`, "built-in tools run only on OpenAI's Responses API");
    }
  };
  for (const { def, where } of declared(body)) add(def, where);
  // A namespaced tool keeps its own name unless another tool has it too: then `<namespace>__<name>`.
  const count = new Map<string, number>();
  for (const e of raw) count.set(e.name, (count.get(e.name) ?? 0) + 1);
  const entries: ToolEntry[] = [];
  const byChatName = new Map<string, ToolEntry>();
  for (const e of raw) {
    const chatName = safeName(e.namespace && (count.get(e.name) ?? 0) > 1 ? `${e.namespace}__${e.name}` : e.name);
    // The same tool declared twice (again in a later additional_tools item): the first one counts.
    if (byChatName.has(chatName)) continue;
    const entry = { ...e, chatName };
    entries.push(entry);
    byChatName.set(chatName, entry);
  }
  return { entries, byChatName };
}

/** The chat name of a call the caller sends back (a function or custom tool call item). */
export function chatNameOf(table: ToolTable, name: unknown, namespace: unknown): string {
  const n = String(name ?? '');
  const hit = table.entries.find((e) => e.name === n && (namespace === undefined || namespace === null || e.namespace === namespace));
  return hit?.chatName ?? n;
}

/** The description of a custom tool's chat function: its own, then how `input` is written. */
function customDescription(t: Msg): string {
  const own = typeof t.description === 'string' ? t.description : '';
  const f = isObj(t.format) ? t.format : undefined;
  if (!f || f.type !== 'grammar' || typeof f.definition !== 'string') return own;
  const syntax = typeof f.syntax === 'string' ? f.syntax : 'grammar';
  return `${own}\n\nPut the raw tool input (not JSON) in \`input\`; it must match this ${syntax} grammar:\n${f.definition}`;
}

/** The chat function tools of a table. */
export function chatTools(table: ToolTable): Msg[] | undefined {
  if (table.entries.length === 0) return undefined;
  return table.entries.map(({ kind, def, chatName, namespaceNote }) => {
    const nsDescription = namespaceNote ?? '';
    if (kind === 'custom') {
      const parameters = { type: 'object', properties: { input: { type: 'string', description: 'The raw input of the tool.' } }, required: ['input'], additionalProperties: false };
      return { type: 'function', function: { name: chatName, description: nsDescription + customDescription(def), parameters } };
    }
    const fn: Msg = { name: chatName, parameters: isObj(def.parameters) ? def.parameters : { type: 'object', properties: {} } };
    const description = nsDescription + (typeof def.description === 'string' ? def.description : '');
    if (description) fn.description = description;
    if (typeof def.strict === 'boolean') fn.strict = def.strict;
    return { type: 'function', function: fn };
  });
}

/** A tool call's arguments as a custom tool's raw input (`{"input": …}` → the string; anything else as it came). */
export function customInput(args: unknown): string {
  const text = typeof args === 'string' ? args : '';
  try {
    const v = JSON.parse(text) as unknown;
    if (isObj(v) && typeof v.input === 'string') return v.input;
  } catch {
    // not JSON: the model wrote the raw input itself
  }
  return text;
}

/** The Responses item of a chat tool call: a `custom_tool_call` for a custom tool, else a `function_call`. */
export function callItem(table: ToolTable, id: string, callId: unknown, chatName: unknown, args: string): Msg {
  const entry = table.byChatName.get(String(chatName ?? ''));
  const ns = entry?.namespace ? { namespace: entry.namespace } : {};
  if (entry?.kind === 'custom') return { type: 'custom_tool_call', id, call_id: callId, ...ns, name: entry.name, input: customInput(args), status: 'completed' };
  return { type: 'function_call', id, call_id: callId, ...ns, name: entry?.name ?? chatName, arguments: args, status: 'completed' };
}
