/**
 * Validation of an option value before it is stored (spec §5 system and operation settings), for
 * the server's save and the console's forms alike.
 */
import type { ServerMessageCode } from './messages.js';
import { OPTION_REGISTRY, isOptionKey, type OptionKey, type OptionSpec } from './option-registry.js';
import { hasControlOrBidi, QUOTA_MAX } from './validation.js';
import { videoPriceProblem } from './video.js';
import { isTimeZone } from './periods.js';

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
  if (spec.shape === 'videoPrices') {
    const problem = videoPriceProblem(parsed);
    if (problem !== undefined) return fail('OPTION_VIDEO_PRICE_INVALID', problem ? `${key}.${problem}` : key);
    const bad = Object.keys(parsed as object).find(hasControlOrBidi);
    if (bad !== undefined) return fail('TEXT_CONTROL_CHARS', `${key}: ${JSON.stringify(bad)}`);
    return null;
  }
  if ((spec.shape === 'names' || spec.shape === 'ratios') && !isMap) return fail('OPTION_NOT_JSON', key);
  if (spec.shape === 'names' || spec.shape === 'ratios') {
    // The keys are group and model names, shown in lists and selects like any other one-line name.
    const bad = Object.keys(parsed as object).find(hasControlOrBidi);
    // Named with its invisible characters spelt out, so the message itself cannot be reordered.
    if (bad !== undefined) return fail('TEXT_CONTROL_CHARS', `${key}: ${JSON.stringify(bad).replace(/[\p{Cf}\p{Zl}\p{Zp}]/gu, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`)}`);
  }
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

/**
 * An absolute http(s) URL with a host and no credentials: what an address option holds (the
 * server's own address, the payment gateway, the download worker, sign-in providers). Any other
 * scheme (`javascript:`, `data:`, `file:`, …) would be put in a link, a redirect or a fetch.
 */
export function isHttpUrl(value: string): boolean {
  if (/[\s\p{Cc}]/u.test(value)) return false;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && !url.username && !url.password;
}

/**
 * A link option the console opens or frames (top-up link, chat links): http(s) only. Only the
 * start is checked, as a chat link is a template whose `{key}` and `{address}` are filled later.
 */
const HTTP_LINK = /^https?:\/\/[^\s/?#\\]/i;

/** The widest IPv4 range an allow list may hold: the largest private or special range is a /8 (10/8, 127/8). */
const V4_MIN_PREFIX = 8;
/** The widest IPv6 range: fc00::/7 (unique local) is the largest range the outbound guard refuses. */
const V6_MIN_PREFIX = 7;
/** IPv4-mapped addresses (::ffff:0:0/96) match IPv4 peers too: a range of them is held to the IPv4 limit (96 + 8). */
const V4_MAPPED_MIN_PREFIX = 104;

/** The eight 16-bit groups of an IPv6 address that passed `isIpOrCidr`. */
function v6Groups(address: string): number[] {
  const [head = '', tail] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.map((g) => parseInt(g, 16));
}

/**
 * Whether an allow-list entry opens more than an operator could mean: `0.0.0.0/0`, `::/0` or any
 * range wider than the widest refused one would switch the outbound guard off for this host, the
 * private networks and cloud metadata at once.
 */
function ipRangeTooBroad(entry: string): boolean {
  const [address = '', bits] = entry.split('/');
  const v4 = !address.includes(':');
  const prefix = bits === undefined ? (v4 ? 32 : 128) : Number(bits);
  if (v4) return prefix < V4_MIN_PREFIX;
  if (prefix < V6_MIN_PREFIX) return true;
  // Overlaps ::ffff:0:0/96 when its first min(prefix, 96) bits are those of the mapped prefix (80 zero bits, then 16 ones).
  const groups = v6Groups(address);
  const mapped = [0, 0, 0, 0, 0, 0xffff];
  const shared = Math.min(prefix, 96);
  let overlaps = true;
  for (let bit = 0; bit < shared && overlaps; bit += 16) {
    const width = Math.min(16, shared - bit);
    const mask = (0xffff << (16 - width)) & 0xffff;
    if (((groups[bit / 16] ?? 0) & mask) !== (mapped[bit / 16]! & mask)) overlaps = false;
  }
  return overlaps && prefix < V4_MAPPED_MIN_PREFIX;
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
      if (value && !isHttpUrl(value)) return fail('OPTION_URL_INVALID', key);
      break;
    case 'link':
      value = value.trim();
      if (value && (!HTTP_LINK.test(value) || /[\s\p{Cc}]/u.test(value))) return fail('OPTION_URL_INVALID', key);
      break;
    case 'iplist': {
      const entries = value.split(/[\s,]+/).filter(Boolean);
      const bad = entries.filter((e) => !isIpOrCidr(e));
      if (bad.length) return fail('OPTION_IP_LIST_INVALID', `${key}: ${bad.join(', ')}`);
      const broad = entries.filter(ipRangeTooBroad);
      if (broad.length) return fail('OPTION_IP_RANGE_TOO_BROAD', `${key}: ${broad.join(', ')}`);
      value = entries.join(',');
      break;
    }
    case 'timezone':
      value = value.trim();
      if (value && !isTimeZone(value)) return fail('OPTION_TIME_ZONE_INVALID', key);
      break;
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
