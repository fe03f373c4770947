/**
 * Input rules shared by server and web (spec §5 plus the hardening of issue 10): integer bounds a
 * database column can hold, text that a database or an admin screen can show safely, and
 * usernames that cannot impersonate one another.
 */
import { USERNAME_MAX_LENGTH } from './constants.js';

/** Quotas travel as JSON numbers: beyond 2^53 − 1 they lose precision (a BIGINT holds more). */
export const QUOTA_MAX = Number.MAX_SAFE_INTEGER;
/** Row ids are BIGINT (PostgreSQL, MySQL) or INTEGER (SQLite, 64-bit). */
export const ID_MAX = Number.MAX_SAFE_INTEGER;
/** A 32-bit INTEGER column (type, status, weight, …). */
export const INT32_MAX = 2_147_483_647;
/** Unix seconds up to 9999-12-31T23:59:59Z. */
export const TIMESTAMP_MAX = 253_402_300_799;
/** Deepest page a list may ask for: beyond it OFFSET scans are a denial of service. */
export const PAGE_MAX = 1_000_000;
export const PAGE_SIZE_MAX = 100;

export function hasNul(s: string): boolean {
  return s.includes('\u0000');
}

/** `local@domain.tld` with no whitespace: the shape every email an account holds has (its length is the caller's rule). */
export function isEmailAddress(s: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s) && !hasControlOrBidi(s);
}

/** C0/C1 controls (NUL, BEL, ESC, line breaks, …). */
const CONTROL = /\p{Cc}/u;
/** Bidi embeddings, overrides, isolates and marks: they reorder what an admin sees (Trojan Source). */
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** A one-line name shown in lists (display name, group, tag, token name): no controls, no bidi. */
export function hasControlOrBidi(s: string): boolean {
  return CONTROL.test(s) || BIDI.test(s);
}

/** `s` without its control and bidi characters (data brought in from elsewhere, e.g. an import, that cannot be refused whole). */
export function withoutControlOrBidi(s: string): string {
  return s.replace(/\p{Cc}/gu, '').replace(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g, '');
}

/**
 * Characters a username may not contain after NFKC: controls, format characters (zero-width
 * space/joiner, bidi controls, BOM, …), line/paragraph separators, private-use, unassigned and
 * surrogate code points, default-ignorables (Hangul fillers, variation selectors, CGJ) and any
 * whitespace other than the plain space.
 */
const USERNAME_FORBIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Cs}\p{Default_Ignorable_Code_Point}]|(?! )\s/u;

/** Script names to test a character against (Unicode 15 and later; unknown ones are skipped). */
const SCRIPT_NAMES =
  'Latin Greek Cyrillic Armenian Hebrew Arabic Syriac Thaana Nko Samaritan Mandaic Devanagari Bengali Gurmukhi Gujarati Oriya Tamil Telugu Kannada Malayalam Sinhala Thai Lao Tibetan Myanmar Georgian Hangul Ethiopic Cherokee Canadian_Aboriginal Ogham Runic Khmer Mongolian Hiragana Katakana Bopomofo Han Yi Old_Italic Gothic Deseret Tagalog Hanunoo Buhid Tagbanwa Limbu Tai_Le Linear_B Ugaritic Shavian Osmanya Cypriot Braille Buginese Coptic New_Tai_Lue Glagolitic Tifinagh Syloti_Nagri Old_Persian Kharoshthi Balinese Cuneiform Phoenician Phags_Pa Sundanese Lepcha Ol_Chiki Vai Saurashtra Kayah_Li Rejang Lycian Carian Lydian Cham Tai_Tham Tai_Viet Avestan Egyptian_Hieroglyphs Imperial_Aramaic Inscriptional_Pahlavi Inscriptional_Parthian Javanese Kaithi Lisu Meetei_Mayek Old_South_Arabian Old_Turkic Bamum Batak Brahmi Chakma Meroitic_Cursive Meroitic_Hieroglyphs Miao Sharada Sora_Sompeng Takri Caucasian_Albanian Bassa_Vah Duployan Elbasan Grantha Pahawh_Hmong Khojki Linear_A Mahajani Manichaean Mende_Kikakui Modi Mro Old_North_Arabian Nabataean Palmyrene Pau_Cin_Hau Old_Permic Psalter_Pahlavi Siddham Khudawadi Tirhuta Warang_Citi Ahom Anatolian_Hieroglyphs Hatran Multani Old_Hungarian SignWriting Adlam Bhaiksuki Marchen Newa Osage Tangut Masaram_Gondi Nushu Soyombo Zanabazar_Square Dogra Gunjala_Gondi Makasar Medefaidrin Hanifi_Rohingya Sogdian Old_Sogdian Elymaic Nandinagari Nyiakeng_Puachue_Hmong Wancho Chorasmian Dives_Akuru Khitan_Small_Script Yezidi Cypro_Minoan Old_Uyghur Tangsa Toto Vithkuqi Kawi Nag_Mundari';

/** Script combinations one name may mix (UTS #39 "highly restrictive": Japanese, Chinese, Korean). */
const ALLOWED_MIXES = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];

let scriptTests: Array<[string, RegExp]> | undefined;

/** Built on first use, so a browser that lacks a newer script name only skips that script. */
function scripts(): Array<[string, RegExp]> {
  if (!scriptTests) {
    scriptTests = [];
    for (const name of SCRIPT_NAMES.split(' ')) {
      try {
        scriptTests.push([name, new RegExp(`\\p{scx=${name}}`, 'u')]);
      } catch {
        // An engine on an older Unicode version: characters of that script are unassigned to it.
      }
    }
  }
  return scriptTests;
}

const COMMON_OR_INHERITED = /^[\p{scx=Zyyy}\p{scx=Zinh}]$/u;

/** The scripts (Script_Extensions) of each letter of `s`; digits, punctuation and marks are skipped. */
function scriptSets(s: string): Array<Set<string>> {
  const sets: Array<Set<string>> = [];
  for (const ch of s) {
    if (COMMON_OR_INHERITED.test(ch)) continue;
    const set = new Set<string>();
    for (const [name, re] of scripts()) if (re.test(ch)) set.add(name);
    // A script this engine does not know yet still counts as one script of its own.
    sets.push(set.size ? set : new Set(['Other']));
  }
  return sets;
}

/** True when the letters of `s` come from one script, or from one allowed CJK mix. */
export function isSingleScript(s: string): boolean {
  const sets = scriptSets(s);
  if (sets.length === 0) return true;
  const common = [...sets[0]!].filter((name) => sets.every((set) => set.has(name)));
  if (common.length > 0) return true;
  return ALLOWED_MIXES.some((mix) => sets.every((set) => mix.some((name) => set.has(name))));
}

/** NFKC folds full-width and compatibility forms (`ｆｏｏ` → `foo`, `ﬁ` → `fi`) into one spelling. */
export function normaliseUsername(raw: string): string {
  return raw.normalize('NFKC').trim();
}

export type UsernameProblem = 'USERNAME_TOO_LONG' | 'USERNAME_INVALID_CHARS' | 'USERNAME_MIXED_SCRIPT';

/**
 * What is wrong with an already normalised username, or null. Empty names are the caller's rule.
 * `maxLength`: the sign-up limit; an import passes its column's (new-api's OAuth names are longer).
 */
export function usernameProblem(name: string, maxLength = USERNAME_MAX_LENGTH): UsernameProblem | null {
  if ([...name].length > maxLength) return 'USERNAME_TOO_LONG';
  if (USERNAME_FORBIDDEN.test(name)) return 'USERNAME_INVALID_CHARS';
  if (!isSingleScript(name)) return 'USERNAME_MIXED_SCRIPT';
  return null;
}

/**
 * The form two usernames are compared in: `ROOT`, `Root` and `ｒｏｏｔ` are one name. NFKC, then
 * full case folding approximated by upper- then lower-casing (`ß` → `ss`, final `ς` → `σ`, `ı` →
 * `i`), then NFKC again for what the case mapping decomposed. Computed here rather than by the
 * database's lower(), which folds only ASCII on SQLite, follows the locale on PostgreSQL and the
 * collation on MySQL: the unique index on this form (migration 0014) means the same everywhere.
 */
export function usernameKey(name: string): string {
  return name.normalize('NFKC').trim().toUpperCase().toLowerCase().normalize('NFKC');
}

/** The longest key its column holds (varchar(191): what a MySQL utf8mb4 index takes); a name with a longer one is refused. */
export const USERNAME_KEY_MAX_LENGTH = 191;
