/**
 * Limits on local token counting. Byte-pair encoding costs grow with the square of a pre-tokeniser
 * piece's length (gpt-tokenizer, measured: 32 KB of one repeated letter ≈ 1.5 s, 32 KB of CJK
 * without spaces ≈ 8 s, 256 KB ≈ 75 s), and even ordinary text costs about 1.5-4 µs per character
 * when every word is new to the merge cache. So every count is (1) cut into short pieces,
 * (2) done on the event loop only when small, (3) done in a worker thread when larger, and
 * (4) replaced by an estimate beyond a hard bound.
 */

/** Total characters counted inline (on the event loop): at most a few ms even for hostile text. */
export const INLINE_MAX_CHARS = 8 * 1024;

/** Total characters tokenised at all; above this (≈ 500 000 English tokens) `estimateTokens` is used. */
export const HARD_MAX_CHARS = 2 * 1024 * 1024;

/** Characters queued for the worker pool at most; beyond, new requests are estimated instead of waiting. */
export const MAX_QUEUED_CHARS = 8 * 1024 * 1024;

/**
 * Tokens of `text` with every run of letters, of whitespace or of other symbols longer than 256
 * characters cut every 256 characters before encoding. Ordinary text has no such runs (words,
 * number groups and punctuation are short), so its count is exact; a hostile run costs linear
 * time instead of quadratic, and its count moves by at most a token per cut.
 *
 * Self-contained on purpose: the worker thread runs this very function from its source text
 * (token-pool.ts), so it must not refer to anything outside its own body.
 */
export function countBounded(count: (text: string) => number, text: string): number {
  if (text.length <= 256) return count(text);
  // The lookbehinds make the scan linear: a match can only start at the beginning of a run.
  const longRun = /(?<![\p{L}\p{M}])[\p{L}\p{M}]{257,}|(?<!\s)\s{257,}|(?<![^\s\p{L}\p{N}])[^\s\p{L}\p{N}]{257,}/gu;
  let total = 0;
  let from = 0;
  for (const m of text.matchAll(longRun)) {
    const end = m.index + m[0].length;
    for (let cut = m.index + 256; cut < end; cut += 256) {
      // Never split a surrogate pair.
      const at = (text.charCodeAt(cut) & 0xfc00) === 0xdc00 ? cut + 1 : cut;
      total += count(text.slice(from, at));
      from = at;
    }
  }
  return total + count(text.slice(from));
}

/**
 * The documented estimate used instead of tokenising (beyond `HARD_MAX_CHARS`, or when the worker
 * pool is saturated or failed): one token per 3 UTF-8 bytes. That is above the real count for
 * English prose (~4 characters a token), close to it for Chinese (3 bytes a character, ~1 token
 * a character with cl100k), and needs one native pass over the strings.
 */
export function estimateTokens(texts: readonly string[]): number {
  let bytes = 0;
  for (const t of texts) bytes += Buffer.byteLength(t, 'utf8');
  return Math.ceil(bytes / 3);
}
