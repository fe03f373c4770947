import { countTokens as cl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomWords } from '../../test-support/text.js';
import { codePoints } from '../usage-count.js';
import { countBounded, estimateTokens, HARD_MAX_CHARS, INLINE_MAX_CHARS } from './token-bounded.js';
import { countChatPrompt, countInput, countText, releaseTokenCounter, retainTokenCounter } from './token-counter.js';

const exact = (text: string) => cl100k(text, { disallowedSpecial: new Set() });

beforeAll(() => retainTokenCounter());
afterAll(() => releaseTokenCounter());

describe('bounded counting', () => {
  it('is exact for ordinary text: prose, Chinese with punctuation, code, JSON', () => {
    const samples = [
      'Hello there friend, how are you doing today? '.repeat(300),
      '我们今天去公园散步，天气很好。他说这个问题很难解决，但是我们可以试一试。'.repeat(100),
      'function f(a, b) {\n  return a + b; // sum\n}\n'.repeat(200),
      JSON.stringify({ tools: Array.from({ length: 200 }, (_, i) => ({ name: `fn_${i}`, description: 'does things', parameters: { type: 'object' } })) }),
      randomWords(20_000),
    ];
    for (const s of samples) expect(countBounded(exact, s)).toBe(exact(s));
  });

  it('cuts hostile runs (one letter, CJK without breaks, spaces, symbols, emoji) into pieces of 256', () => {
    expect(countBounded(exact, 'a'.repeat(64 * 1024))).toBe(256 * exact('a'.repeat(256)));
    expect(countBounded(exact, ' '.repeat(64 * 1024))).toBeGreaterThan(0);
    expect(countBounded(exact, '!'.repeat(64 * 1024))).toBe(256 * exact('!'.repeat(256)));
    expect(countBounded(exact, '你好世界'.repeat(16 * 1024))).toBe(256 * exact('你好世界'.repeat(64)));
    // Cuts never split a surrogate pair: every emoji still counts as a whole.
    const emoji = '😀'.repeat(20_000);
    expect(countBounded((t) => (t.includes('\ufffd') || /[\ud800-\udbff]$/.test(t) ? NaN : t.length), emoji)).toBe(emoji.length);
  });
});

describe('countText / countChatPrompt / countInput', () => {
  it('counts text that contains special-token markers as ordinary text instead of throwing', async () => {
    const text = 'ignore this <|endoftext|> and this <|im_start|>';
    expect(await countText('gpt-4', text)).toBe(exact(text));
    const body = { messages: [{ role: 'user', content: text }] };
    expect(await countChatPrompt('gpt-4', body)).toBe(3 + 3 + exact('user') + exact(text));
  });

  it('counts a large input in the worker with the same result as inline counting', async () => {
    const text = randomWords(INLINE_MAX_CHARS * 20);
    const expected = countBounded(exact, text);
    expect(await countText('gpt-4', text)).toBe(expected);
    expect(await countInput('text-embedding-3-small', [text, 'one two', [1, 2, 3]])).toBe(expected + exact('one two') + 3);
  });

  it('keeps the event loop turning while a large count runs', async () => {
    const text = randomWords(1024 * 1024, 11);
    const order: string[] = [];
    const counting = countText('gpt-3.5-turbo', text).then((n) => {
      order.push('counted');
      return n;
    });
    setTimeout(() => order.push('timer'), 0);
    const n = await counting;
    expect(n).toBeGreaterThan(100_000);
    expect(order).toEqual(['timer', 'counted']);
  });

  it('estimates instead of tokenising beyond the hard bound: one token per 3 UTF-8 bytes', async () => {
    const text = 'x'.repeat(HARD_MAX_CHARS) + '好'.repeat(10);
    expect(estimateTokens([text])).toBe(Math.ceil((HARD_MAX_CHARS + 30) / 3));
    expect(await countText('gpt-4o', text)).toBe(estimateTokens([text]));
    const body = { messages: [{ role: 'user', content: text }], tools: [{ type: 'function', function: { name: 'f' } }] };
    const tools = JSON.stringify(body.tools);
    expect(await countChatPrompt('gpt-4', body)).toBe(3 + 3 + 8 + estimateTokens(['user', text, tools]));
  });

  it('ignores input nested deeper than the API allows', async () => {
    expect(await countInput('text-embedding-3-small', [[[['deep']]]])).toBe(0);
    expect(await countInput('text-embedding-3-small', [[1, 2], [3]])).toBe(3);
  });
});

describe('codePoints', () => {
  it('counts characters like the spread operator, without building an array', () => {
    for (const s of ['', 'Hello world', '你好', '😀a😀', '\ud800x', 'x\udc00', '\udc00\ud800']) expect(codePoints(s)).toBe([...s].length);
  });
});
