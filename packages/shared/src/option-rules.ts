/**
 * Validation of an option value before it is stored (spec §5 system and operation settings), for
 * the server's save and the console's forms alike.
 */
import type { ServerMessageCode } from './messages.js';
import { OPTION_REGISTRY, isOptionKey, type OptionKey, type OptionSpec } from './option-registry.js';
import { QUOTA_MAX } from './validation.js';

export type OptionCheck = { ok: true; value: string } | { ok: false; code: ServerMessageCode; detail?: string };

const fail = (code: ServerMessageCode, detail?: string): OptionCheck => ({ ok: false, code, detail });

/** The string form of a value sent as JSON (the console sends booleans, numbers and objects too). */
function asString(raw: unknown): string {
  if (typeof raw === 'string') return raw;
  if (raw === null || raw === undefined) return '';
  return typeof raw === 'object' ? JSON.stringify(raw) : String(raw);
}

/** Schemes a chat link may not use: the console puts it in an iframe or opens it (script would run as the console). */
const UNSAFE_SCHEME = /^\s*(javascript|data|vbscript|blob|file):/i;
/** A URL template: an absolute URL with a scheme (`https://…`, or an app's own such as `ama://…`). */
const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\S/i;

/** `Chats`: a list of one-entry objects `{"name": "URL template with {key} and {address}"}` (console-api.md §6). */
function checkChats(key: string, parsed: unknown): OptionCheck | null {
  if (!Array.isArray(parsed)) return fail('OPTION_CHATS_INVALID', key);
  for (const [i, entry] of parsed.entries()) {
    const at = `${key}[${i}]`;
    if (!entry || typeof entry !== 'object' || Array.isArray(entry) || Object.keys(entry).length !== 1) return fail('OPTION_CHATS_INVALID', at);
    const [name, url] = Object.entries(entry as Record<string, unknown>)[0]!;
    if (!name.trim()) return fail('OPTION_CHATS_INVALID', at);
    if (typeof url !== 'string' || !HAS_SCHEME.test(url.trim())) return fail('OPTION_CHATS_INVALID', `${at} ${name}`);
    if (UNSAFE_SCHEME.test(url)) return fail('OPTION_CHATS_UNSAFE', `${at} ${name}`);
  }
  return null;
}

function checkJson(key: string, spec: OptionSpec, value: string): OptionCheck | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return fail('OPTION_NOT_JSON', key);
  }
  const isMap = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
  if (spec.shape === 'chats') return checkChats(key, parsed);
  if ((spec.shape === 'names' || spec.shape === 'ratios') && !isMap) return fail('OPTION_NOT_JSON', key);
  if (spec.shape === 'ratios') {
    for (const [name, v] of Object.entries(parsed as object)) {
      if (typeof v !== 'number' || !Number.isFinite(v)) return fail('OPTION_NOT_NUMBER', `${key}.${name}`);
      if (v < 0) return fail('OPTION_NEGATIVE_RATIO', `${key}.${name}`);
    }
  }
  return null;
}

/** `10.0.0.0/8`, `192.168.1.5`, `fd00::/8`, `2001:db8::1`: syntax only (the server parses it for use). */
export function isIpOrCidr(entry: string): boolean {
  const [address = '', bits, ...rest] = entry.split('/');
  if (rest.length) return false;
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(address);
  const max = v4 ? 32 : 128;
  if (bits !== undefined && (!/^\d{1,3}$/.test(bits) || Number(bits) > max)) return false;
  if (v4) return v4.slice(1).every((o) => Number(o) <= 255 && !(o.length > 1 && o.startsWith('0')));
  if (!/^[0-9a-fA-F:]+$/.test(address) || !address.includes(':')) return false;
  const halves = address.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((h) => (h ? h.split(':') : []));
  if (groups.some((g) => g.length < 1 || g.length > 4)) return false;
  return halves.length === 2 ? groups.length < 8 : groups.length === 8;
}

/** The stored form of `raw` for `key`, or why it cannot be stored. `current` reads the other options. */
export function normaliseOption(key: string, raw: unknown, current: (key: OptionKey) => string): OptionCheck {
  if (!isOptionKey(key)) return fail('OPTION_UNKNOWN', key);
  const spec: OptionSpec = OPTION_REGISTRY[key];
  let value = asString(raw);

  switch (spec.kind) {
    case 'bool': {
      const v = value.trim().toLowerCase();
      if (v !== 'true' && v !== 'false') return fail('OPTION_NOT_BOOL', key);
      value = v;
      break;
    }
    case 'int':
      value = value.trim();
      if (!/^-?\d+$/.test(value)) return fail('OPTION_NOT_NUMBER', key);
      // Integer options are quotas and counts that end up in BIGINT columns and JSON numbers.
      if (!Number.isSafeInteger(Number(value))) return fail('INT_OUT_OF_RANGE', `${key} (${-QUOTA_MAX} ~ ${QUOTA_MAX})`);
      if (Number(value) < 0 && !spec.allowNegative) return fail('QUOTA_NEGATIVE', key);
      break;
    case 'float':
      if (value.trim() === '' || !Number.isFinite(Number(value))) return fail('OPTION_NOT_NUMBER', key);
      if (Number(value) < 0) return fail('QUOTA_NEGATIVE', key);
      value = value.trim();
      break;
    case 'json': {
      const problem = checkJson(key, spec, value);
      if (problem) return problem;
      break;
    }
    case 'address':
      value = value.trim().replace(/\/+$/, '');
      break;
    case 'iplist': {
      const entries = value.split(/[\s,]+/).filter(Boolean);
      const bad = entries.filter((e) => !isIpOrCidr(e));
      if (bad.length) return fail('OPTION_IP_LIST_INVALID', `${key}: ${bad.join(', ')}`);
      value = entries.join(',');
      break;
    }
    case 'string':
      break;
  }

  if (spec.min !== undefined && (spec.kind === 'int' || spec.kind === 'float') && Number(value) < spec.min) {
    return fail('OPTION_BELOW_MIN', `${key} ≥ ${spec.min}`);
  }

  const req = spec.requires;
  // A switch needs its settings only to be turned on; any other option needs them to be saved at all.
  if (req && (spec.kind !== 'bool' || value === 'true')) {
    const missing = req.keys.some((k) => isOptionKey(k) && !current(k).trim());
    if (missing) return fail(req.code);
  }
  return { ok: true, value };
}
