import { describe, expect, it } from 'vitest';
import { AhoCorasick } from './aho-corasick.js';

/** The obvious answer the automaton must agree with. */
function naive(words: string[], text: string): string[] {
  const t = text.toLowerCase();
  return [...new Set(words.map((w) => w.trim().toLowerCase()).filter(Boolean))].filter((w) => t.includes(w)).sort();
}

describe('AhoCorasick', () => {
  it('finds every word, overlapping and nested ones included, ignoring case', () => {
    const ac = new AhoCorasick(['he', 'she', 'his', 'hers', 'HERSELF']);
    expect(ac.findAll('uSHErs and herself').sort()).toEqual(['he', 'hers', 'herself', 'she']);
  });

  it('matches Chinese words and words that are suffixes of others', () => {
    const ac = new AhoCorasick(['敏感', '感词', '词']);
    expect(ac.findAll('这里有敏感词').sort()).toEqual(['感词', '敏感', '词'].sort());
    expect(ac.test('没有问题')).toBe(false);
  });

  it('ignores blank lines and surrounding spaces in the word list', () => {
    const ac = new AhoCorasick(['', '  bad  ', '\t']);
    expect(ac.size).toBe(1);
    expect(ac.findAll('a BAD day')).toEqual(['bad']);
    expect(new AhoCorasick([]).findAll('anything')).toEqual([]);
  });

  it('agrees with a naive scan on random texts', () => {
    let seed = 7;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const alphabet = 'abcAB';
    const word = (len: number) => Array.from({ length: len }, () => alphabet[rand(alphabet.length)]).join('');
    for (let round = 0; round < 200; round++) {
      const words = Array.from({ length: 1 + rand(6) }, () => word(1 + rand(4)));
      const text = word(rand(40));
      expect(new AhoCorasick(words).findAll(text).sort(), `${JSON.stringify(words)} in ${text}`).toEqual(naive(words, text));
    }
  });

  it('scans a text that arrives in pieces as one string, reporting each word once', () => {
    const ac = new AhoCorasick(['secret', '敏感词', 'ab']);
    const scan = ac.scanner();
    expect(scan.feed('the SEC')).toEqual([]);
    expect(scan.feed('ret is ')).toEqual(['secret']);
    expect(scan.feed('敏')).toEqual([]);
    expect(scan.feed('感词 and secret again, a')).toEqual(['敏感词']);
    expect(scan.feed('b')).toEqual(['ab']);
    expect(scan.feed('ab secret')).toEqual([]);
  });

  it('finds the same words whatever the split, on random texts', () => {
    let seed = 11;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const word = (len: number) => Array.from({ length: len }, () => 'abAB'[rand(4)]).join('');
    for (let round = 0; round < 200; round++) {
      const words = Array.from({ length: 1 + rand(5) }, () => word(1 + rand(4)));
      const text = word(rand(40));
      const scan = new AhoCorasick(words).scanner();
      const found: string[] = [];
      for (let i = 0; i < text.length; ) {
        const n = 1 + rand(5);
        found.push(...scan.feed(text.slice(i, i + n)));
        i += n;
      }
      expect(found.sort(), `${JSON.stringify(words)} in ${text}`).toEqual(naive(words, text));
    }
  });

  it('a small alphabet compiles to one table; thousands of distinct characters keep the sparse form; both agree with a naive scan', () => {
    let seed = 5;
    const rand = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) % n);
    const latin = Array.from({ length: 1000 }, (_, i) => Array.from({ length: 4 + (i % 5) }, () => 'abcdefghij'[rand(10)]).join(''));
    const han = Array.from({ length: 1500 }, (_, i) => String.fromCharCode(0x4e00 + 2 * i, 0x4e01 + 2 * i));
    const dense = new AhoCorasick(latin);
    const sparse = new AhoCorasick(han);
    expect(dense.dense).toBe(true);
    expect(sparse.dense).toBe(false);
    for (let round = 0; round < 20; round++) {
      const text = Array.from({ length: 400 }, () => (rand(3) === 0 ? String.fromCharCode(0x4e00 + rand(3000)) : 'abcdefghijXY '[rand(13)])).join('');
      expect(dense.findAll(text).sort()).toEqual(naive(latin, text));
      expect(sparse.findAll(text).sort()).toEqual(naive(han, text));
    }
  });
});
