/**
 * The playground keeps its settings and conversation in localStorage, so a reload (or a return
 * days later) finds them as they were. Values are checked when read back: a hand-edited or older
 * entry falls back to the defaults instead of breaking the screen.
 */

export type TurnState = 'loading' | 'incomplete' | 'complete' | 'stopped' | 'error';

export interface ChatMessage {
  id: string;
  role: 'user' | 'assistant';
  content: string;
  /** Data URLs of attached images (user messages). */
  images?: string[];
  status: TurnState;
  error?: string;
  /** Quota the answer cost, from the usage log; null when no log row was found. */
  cost?: { quota: number; promptTokens: number; completionTokens: number } | null;
}

export interface PlaygroundSettings {
  group: string;
  model: string;
  temperature: number;
  topP: number;
  /** 0 = not sent. */
  maxTokens: number;
  systemPrompt: string;
}

/** Spec §9: model gpt-4o-mini, temperature 0, max tokens 0. */
export const DEFAULT_SETTINGS: PlaygroundSettings = { group: '', model: 'gpt-4o-mini', temperature: 0, topP: 1, maxTokens: 0, systemPrompt: '' };

const SETTINGS_KEY = 'playground-settings';
const CONVERSATION_KEY = 'playground-conversation';

function read(key: string): unknown {
  try {
    const text = localStorage.getItem(key);
    return text ? (JSON.parse(text) as unknown) : null;
  } catch {
    return null;
  }
}

const num = (v: unknown, fallback: number, min: number, max: number) => (typeof v === 'number' && Number.isFinite(v) && v >= min && v <= max ? v : fallback);
const str = (v: unknown, fallback: string) => (typeof v === 'string' ? v : fallback);

export function loadSettings(): PlaygroundSettings {
  const raw = read(SETTINGS_KEY);
  const s = raw && typeof raw === 'object' ? (raw as Record<string, unknown>) : {};
  const d = DEFAULT_SETTINGS;
  return {
    group: str(s.group, d.group),
    model: str(s.model, d.model) || d.model,
    temperature: num(s.temperature, d.temperature, 0, 2),
    topP: num(s.topP, d.topP, 0, 1),
    maxTokens: Math.floor(num(s.maxTokens, d.maxTokens, 0, 1_000_000)),
    systemPrompt: str(s.systemPrompt, d.systemPrompt),
  };
}

export function saveSettings(settings: PlaygroundSettings): void {
  try {
    localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings));
  } catch {
    // Storage full or disabled: the settings still hold for this visit.
  }
}

function isMessage(v: unknown): v is ChatMessage {
  const m = v as Partial<ChatMessage> | null;
  return !!m && typeof m.id === 'string' && (m.role === 'user' || m.role === 'assistant') && typeof m.content === 'string' && typeof m.status === 'string';
}

export function loadConversation(): ChatMessage[] {
  const raw = read(CONVERSATION_KEY);
  if (!Array.isArray(raw)) return [];
  // An answer still streaming when the page went away was cut off there.
  return raw.filter(isMessage).map((m) => (m.status === 'loading' || m.status === 'incomplete' ? { ...m, status: 'stopped' } : m));
}

export function saveConversation(messages: ChatMessage[]): void {
  try {
    localStorage.setItem(CONVERSATION_KEY, JSON.stringify(messages));
  } catch {
    // Images can outgrow the storage quota: keep the text of the conversation at least.
    try {
      localStorage.setItem(CONVERSATION_KEY, JSON.stringify(messages.map(({ images: _images, ...m }) => m)));
    } catch {
      // Storage disabled: the conversation lasts for this visit.
    }
  }
}
