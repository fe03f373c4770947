#!/usr/bin/env node
/**
 * Sensitive-word matching (relay/sensitive/): the Aho–Corasick automaton the relay uses against a
 * loop of `includes` over the same word list, on a long prompt that contains none of the words
 * (the common case: every word must be ruled out). In-process, CPU only; a second or two.
 *
 *   node bench/sensitive-words.mjs [--no-build]   this row alone
 *   BENCH_SENSITIVE_WORDS=2000 BENCH_SENSITIVE_KB=64 BENCH_SENSITIVE_N=50
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, f, log, root } from './lib/harness.mjs';

const WORDS = Number(process.env.BENCH_SENSITIVE_WORDS ?? 2000);
const KB = Number(process.env.BENCH_SENSITIVE_KB ?? 64);
const N = Number(process.env.BENCH_SENSITIVE_N ?? 50);

/** Deterministic pseudo-words: the list and the prompt share letters but no whole word. */
function* words(seed, count, alphabet) {
  let s = seed;
  for (let i = 0; i < count; i++) {
    let w = '';
    const len = 5 + (i % 6);
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

/** The row: µs per check of one prompt for each approach, and the speed-up. */
export async function runSensitiveWords() {
  const { AhoCorasick } = await import(pathToFileURL(path.join(root, 'packages/server/dist/relay/sensitive/aho-corasick.js')).href);
  const list = [...words(7, WORDS, 'bcdfghjklmnpqrstvwxz')].map((w) => `${w}q`);
  let prompt = '';
  for (const w of words(11, Number.MAX_SAFE_INTEGER, 'aeioubcdfghjklmnp ')) {
    prompt += `${w} `;
    if (prompt.length >= KB * 1024) break;
  }
  const ac = new AhoCorasick(list);
  const lowerList = list.map((w) => w.toLowerCase());
  const naive = () => {
    const t = prompt.toLowerCase();
    return lowerList.filter((w) => t.includes(w));
  };
  if (ac.findAll(prompt).length !== naive().length) throw new Error('automaton and includes disagree');
  const acUs = timeUs(() => ac.findAll(prompt));
  const naiveUs = timeUs(naive);
  const rows = [
    [`sensitive words: ${WORDS} words, ${KB} KB prompt`, 'µs per check'],
    ['  loop of includes', f(naiveUs, 0)],
    ['  Aho–Corasick (relay)', `${f(acUs, 0)}  (${f(naiveUs / acUs, 1)} × faster)`],
  ];
  log(`\n${rows.map((r) => `${r[0].padEnd(44)}${r[1]}`).join('\n')}`);
  return { acUs, naiveUs };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  if (!process.argv.includes('--no-build')) build();
  await runSensitiveWords();
}
