#!/usr/bin/env node
/**
 * Sensitive-word matching (relay/sensitive/): the relay's prompt check (`sensitiveHits`, the
 * Aho–Corasick automaton) on a long prompt that contains none of the words (the common case: every
 * word must be ruled out), for a Latin and a Chinese word list, against a loop of `includes` over
 * the same list. In-process, CPU only; a second or two. Budget (hot-path issue): ≤ 0.2 ms for a
 * 32 KB prompt and 1 000 words.
 *
 *   node bench/sensitive-words.mjs [--no-build]   these rows alone
 *   BENCH_SENSITIVE_WORDS=1000 BENCH_SENSITIVE_KB=32 BENCH_SENSITIVE_N=50
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, f, log, root } from './lib/harness.mjs';

const WORDS = Number(process.env.BENCH_SENSITIVE_WORDS ?? 1000);
const KB = Number(process.env.BENCH_SENSITIVE_KB ?? 32);
const N = Number(process.env.BENCH_SENSITIVE_N ?? 50);
const BUDGET_US = 200;
/** 3 000 common CJK code points: the Chinese list and prompt draw from them. */
const HAN = Array.from({ length: 3000 }, (_, i) => String.fromCharCode(0x4e00 + i * 3)).join('');

/** Deterministic pseudo-words of `min`…`min + spread - 1` characters from `alphabet`. */
function* words(seed, count, alphabet, min = 5, spread = 6) {
  let s = seed;
  for (let i = 0; i < count; i++) {
    let w = '';
    const len = min + (i % spread);
    for (let j = 0; j < len; j++) {
      s = (s * 1103515245 + 12345) % 2 ** 31;
      w += alphabet[s % alphabet.length];
    }
    yield w;
  }
}

function timeUs(fn) {
  for (let i = 0; i < 3; i++) fn();
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < N; i++) fn();
  return Number(process.hrtime.bigint() - t0) / 1000 / N;
}

function promptOf(gen, sep) {
  let prompt = '';
  for (const w of gen) {
    prompt += w + sep;
    if (prompt.length * (sep ? 1 : 3) >= KB * 1024) break;
  }
  return prompt;
}

/** The rows: µs per relay check of one chat prompt for each list, the naive loop beside it. */
export async function runSensitiveWords() {
  const dist = (p) => pathToFileURL(path.join(root, 'packages/server/dist', p)).href;
  const { sensitiveHits, sensitiveMatcher } = await import(dist('relay/sensitive/sensitive-filter.js'));
  const cases = [
    // Latin: the list's words end in a letter the prompt never uses, so none occurs.
    { name: 'Latin', list: [...words(7, WORDS, 'bcdfghjklmnpqrstvwxz')].map((w) => `${w}q`), prompt: promptOf(words(11, Number.MAX_SAFE_INTEGER, 'aeioubcdfghjklmnp '), ' ') },
    // Chinese (UTF-8 KB: 3 bytes a character): the list uses the first half of the characters twice over, the prompt the second half and half of the first.
    { name: 'Chinese', list: [...words(7, WORDS, HAN.slice(0, 1500), 2, 3)].map((w) => `${w}${HAN[0]}`), prompt: promptOf(words(11, Number.MAX_SAFE_INTEGER, HAN.slice(750), 3, 8), '，') },
  ];
  const rows = [[`sensitive words: ${WORDS} words, ${KB} KB prompt`, 'µs per check', '', '']];
  const results = {};
  for (const c of cases) {
    const words = c.list.join('\n');
    const options = { bool: () => true, str: () => words };
    const input = { mode: 'chat', format: 'openai-chat', body: { model: 'm', messages: [{ role: 'user', content: c.prompt }] } };
    const lowerList = c.list.map((w) => w.toLowerCase());
    const naive = () => {
      const t = c.prompt.toLowerCase();
      return lowerList.filter((w) => t.includes(w));
    };
    if (sensitiveHits(options, input).length !== naive().length) throw new Error('automaton and includes disagree');
    const dense = sensitiveMatcher(words).dense ? 'one table' : 'per-state maps';
    const us = timeUs(() => sensitiveHits(options, input));
    const naiveUs = timeUs(naive);
    results[c.name] = us;
    rows.push([`  ${c.name}, relay check (${dense})`, f(us, 0), `≤ ${BUDGET_US} µs`, us <= BUDGET_US ? 'met' : 'MISSED']);
    rows.push([`  ${c.name}, loop of includes`, f(naiveUs, 0), `(${f(naiveUs / us, 1)} × slower)`, '']);
  }
  log(`\n${rows.map((r) => `${r[0].padEnd(44)}${r[1].padStart(8)}  ${r[2].padEnd(22)}${r[3]}`).join('\n')}`);
  return results;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--no-build')) build();
  await runSensitiveWords();
}
