/**
 * The scripted agent session (`agentScenario` option of both fakes), for the `agents` test tier where
 * real Claude Code and Codex CLI drive ModelGate: a request whose tools include a shell tool and whose
 * conversation has no tool result yet is answered with one call of that tool running
 * `echo MG_AGENT_OK`; a request whose last turn carries a tool result is answered with text quoting
 * it. Anything else (side calls, requests without a shell tool) gets the fake's ordinary reply.
 *
 * Shell tools, first match wins, arguments in that tool's own schema:
 * - `Bash` (Claude Code): `{command, description}`
 * - `exec_command` (Codex): `{cmd}`
 * - `shell_command`: `{command: "<cmd>"}`; `shell` / `local_shell`: `{command: ["bash","-lc","<cmd>"]}`
 * - `exec` (Codex's freeform JavaScript tool, a Responses `custom` tool, possibly inside a namespace):
 *   a script calling `tools.exec_command`; when a gateway turned it into a function, the script goes in
 *   its one string parameter.
 */
import { isRecord } from './util.js';

export const AGENT_MARKER = 'MG_AGENT_OK';
export const AGENT_COMMAND = `echo ${AGENT_MARKER}`;
/** The script the fake sends to Codex's `exec` tool. */
export const AGENT_EXEC_SCRIPT = `const r = await tools.exec_command({ cmd: ${JSON.stringify(AGENT_COMMAND)} });\ntext(r.output);`;
/** Most words of a tool result the final answer quotes. */
const QUOTE_WORDS = 40;

export interface AgentTool {
  name: string;
  /** `function` (JSON arguments) or `custom` (freeform text input, Responses/chat `custom` tools). */
  kind: 'function' | 'custom';
  /** JSON schema of a function's arguments. */
  schema?: unknown;
  /** The Responses namespace the tool was offered in. */
  namespace?: string;
}

export interface AgentCall {
  name: string;
  kind: 'function' | 'custom';
  namespace?: string;
  /** JSON text of a function's arguments, or a custom tool's raw input. */
  input: string;
}

function stringProps(schema: unknown): string[] {
  const props = isRecord(schema) && isRecord(schema.properties) ? schema.properties : {};
  return Object.entries(props)
    .filter(([, p]) => isRecord(p) && p.type === 'string')
    .map(([k]) => k);
}

/** The call the scenario makes with one of `tools`, or null when none of them runs shell commands. */
export function agentCall(tools: AgentTool[]): AgentCall | null {
  const find = (name: string) => tools.find((t) => t.name === name);
  const fn = (t: AgentTool, args: Record<string, unknown>): AgentCall => ({ name: t.name, kind: 'function', namespace: t.namespace, input: JSON.stringify(args) });
  const bash = find('Bash');
  if (bash && bash.kind === 'function') return fn(bash, { command: AGENT_COMMAND, description: 'Print the agent marker' });
  const execCommand = find('exec_command');
  if (execCommand && execCommand.kind === 'function') return fn(execCommand, { cmd: AGENT_COMMAND });
  const shellCommand = find('shell_command');
  if (shellCommand && shellCommand.kind === 'function') return fn(shellCommand, { command: AGENT_COMMAND });
  const shell = find('shell') ?? find('local_shell');
  if (shell && shell.kind === 'function') return fn(shell, { command: ['bash', '-lc', AGENT_COMMAND] });
  const exec = find('exec');
  if (exec?.kind === 'custom') return { name: exec.name, kind: 'custom', namespace: exec.namespace, input: AGENT_EXEC_SCRIPT };
  const param = exec ? stringProps(exec.schema)[0] : undefined;
  if (exec && param) return fn(exec, { [param]: AGENT_EXEC_SCRIPT });
  return null;
}

/** The final answer to a tool result: the result's words (at most 40), quoted. */
export function agentAnswer(result: string): string {
  const words = result.trim().split(/\s+/u).filter(Boolean).slice(0, QUOTE_WORDS);
  return `The command printed: ${words.join(' ')}`;
}

/** Text of a tool result's content: a string, or the `text` of its parts. */
export function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p: unknown) => (isRecord(p) && typeof p.text === 'string' ? p.text : typeof p === 'string' ? p : '')).join('\n');
}

/** Tools of a Responses request: top-level `tools` and `additional_tools` input items, namespaces flattened. */
export function responsesTools(body: Record<string, unknown>): AgentTool[] {
  const out: AgentTool[] = [];
  const walk = (list: unknown, namespace?: string) => {
    for (const t of Array.isArray(list) ? list : []) {
      if (!isRecord(t) || typeof t.name !== 'string') continue;
      if (t.type === 'namespace') walk(t.tools, t.name);
      else if (t.type === 'function') out.push({ name: t.name, kind: 'function', schema: t.parameters, namespace });
      else if (t.type === 'custom') out.push({ name: t.name, kind: 'custom', namespace });
    }
  };
  walk(body.tools);
  for (const item of Array.isArray(body.input) ? body.input : []) if (isRecord(item) && item.type === 'additional_tools') walk(item.tools);
  return out;
}

/** Tools of a chat completions request (`function` and `custom` tools). */
export function chatTools(body: Record<string, unknown>): AgentTool[] {
  const out: AgentTool[] = [];
  for (const t of Array.isArray(body.tools) ? body.tools : []) {
    if (!isRecord(t)) continue;
    if (t.type === 'function' && isRecord(t.function) && typeof t.function.name === 'string') out.push({ name: t.function.name, kind: 'function', schema: t.function.parameters });
    if (t.type === 'custom' && isRecord(t.custom) && typeof t.custom.name === 'string') out.push({ name: t.custom.name, kind: 'custom' });
  }
  return out;
}
