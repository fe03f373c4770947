/**
 * Completion ratio (output price ÷ input price) of a model (reference §5.1, docs/relay-billing.md
 * "Completion ratio"). Three layers, as the reference gateway resolves them:
 *   1. fixed rules: families whose every member has the same published ratio (gpt-3.5, gpt-4*,
 *      gpt-4o, o1/o3/o4, Claude, gpt-5 without a minor version, …). They win over the option,
 *      so a stale option entry cannot under-bill them (the 2024 reference's behaviour);
 *   2. the CompletionRatio option entry for the model;
 *   3. default rules: families whose members differ or whose prices moved (gpt-5.x, Gemini 2.5
 *      and 3, DeepSeek); the option overrides them. Anything else is 1.
 */

/** Names the reference prices through a wildcard entry. */
export function priceKey(model: string): string {
  if (model.startsWith('gpt-4-gizmo')) return 'gpt-4-gizmo-*';
  if (model.startsWith('gpt-4o-gizmo')) return 'gpt-4o-gizmo-*';
  return model;
}

/** Claude 3.x, 4.x and 5.x all bill output at five times the input. */
const CLAUDE_MODERN = /^claude-(3|(opus|sonnet|haiku|fable|mythos)-\d)/;
/** Gemini generations whose ratios differ per model (the reference fixed 4 for all Gemini). */
const GEMINI_CURRENT = /^gemini-(2\.5|[3-9])/;

/** Layer 1: a fixed rule's ratio, or undefined when none matches. */
export function fixedCompletionRatio(name: string): number | undefined {
  if (name.startsWith('gpt-3.5')) {
    if (name === 'gpt-3.5-turbo' || name.endsWith('0125')) return 3;
    if (name.endsWith('1106')) return 2;
    return 4 / 3;
  }
  // gpt-4.1 family: $2 / $8, $0.40 / $1.60, $0.10 / $0.40.
  if (name.startsWith('gpt-4.1')) return 4;
  if (name.startsWith('gpt-4') && !name.endsWith('-all') && !name.endsWith('-gizmo-*')) {
    if (name.startsWith('gpt-4o')) return name === 'gpt-4o-2024-05-13' ? 3 : 4;
    if (name.startsWith('gpt-4-turbo') || name.endsWith('preview')) return 3;
    return 2;
  }
  // gpt-5, -mini, -nano, -chat, -codex, -pro: output is eight times the input.
  if (/^gpt-5($|-)/.test(name)) return 8;
  if (name.startsWith('o1') || name.startsWith('o3') || name.startsWith('o4')) return 4;
  if (name === 'chatgpt-4o-latest') return 3;
  if (name.startsWith('claude-instant-1') || name.startsWith('claude-2')) return 3;
  if (CLAUDE_MODERN.test(name)) return 5;
  if (name.startsWith('mistral-')) return 3;
  if (name.startsWith('gemini-') && !GEMINI_CURRENT.test(name)) return 4;
  if (name.startsWith('command')) {
    if (name.endsWith('-08-2024')) return 4;
    if (name.startsWith('command-r-plus')) return 5;
    if (name.startsWith('command-r')) return 3;
    return 2;
  }
  if (/^ERNIE-(Speed|Lite|Character|Functions)/.test(name)) return 2;
  return undefined;
}

/** Layer 3: a default rule's ratio, or undefined when none matches. */
export function defaultCompletionRatio(name: string): number | undefined {
  const minor = /^gpt-5\.(\d+)/.exec(name);
  if (minor) {
    // 5.1–5.3: $1.25 / $10 and $1.75 / $14; 5.4 and later: $2.50 / $15, $5 / $30 (nano $0.20 / $1.25).
    const v = Number(minor[1]);
    if (v <= 3) return 8;
    return name.includes('-nano') ? 6.25 : 6;
  }
  // GPT-6.x: no published prices yet; the 5.6 tiers' ratio (output six times the input).
  if (/^gpt-6(\.|-|$)/.test(name)) return 6;
  if (GEMINI_CURRENT.test(name)) {
    if (name.startsWith('gemini-2.5-pro')) return 8;
    if (name.startsWith('gemini-2.5-flash-lite')) return 4;
    if (name.startsWith('gemini-2.5-flash')) return 2.5 / 0.3;
    // Gemini 3.x Pro $2 / $12, Flash $0.50 / $3, Flash-Lite $0.25 / $1.50.
    return 6;
  }
  // DeepSeek V3.2 ($0.28 / $0.42); the reference's 2 (V2 prices) for other DeepSeek names.
  if (name === 'deepseek-chat' || name === 'deepseek-reasoner') return 1.5;
  if (name.startsWith('deepseek')) return 2;
  return undefined;
}

export function completionRatio(model: string, option: Record<string, number>): number {
  const name = priceKey(model);
  const fixed = fixedCompletionRatio(name);
  if (fixed !== undefined) return fixed;
  const v = option[name];
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  return defaultCompletionRatio(name) ?? 1;
}
