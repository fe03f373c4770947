import { describe, expect, it } from 'vitest';
import { hasControlOrBidi, hasNul, isSingleScript, normaliseUsername, usernameKey, usernameProblem } from './validation.js';

describe('username rules', () => {
  it('folds compatibility forms with NFKC', () => {
    expect(normaliseUsername(' ｆｕｌｌ２ ')).toBe('full2');
    expect(normaliseUsername('o\u0301la')).toBe('óla');
    expect(normaliseUsername('ﬁsh')).toBe('fish');
  });

  it('refuses invisible, format, bidi, control and odd whitespace characters', () => {
    for (const ch of ['\u0000', '\u0007', '\u007f', '\u0085', '\u200b', '\u200c', '\u200d', '\u2060', '\ufeff', '\u00ad', '\u202e', '\u2066', '\u200e', '\u061c', '\u3164', '\ufe0f', '\u034f', '\u2028', '\ue000', '\t', '\u1680']) {
      expect(usernameProblem(normaliseUsername(`ab${ch}cd`)), JSON.stringify(ch)).toBe('USERNAME_INVALID_CHARS');
    }
    expect(usernameProblem('ab cd')).toBeNull();
  });

  it('refuses names that mix look-alike scripts but allows CJK mixes', () => {
    for (const name of ['pаypal', 'аdmin', 'rοot', 'Иванa', 'αβγabc']) expect(usernameProblem(name), name).toBe('USERNAME_MIXED_SCRIPT');
    for (const name of ['paypal', 'Иван', 'αβγ', '张三', '田中たろう', 'tanaka田中', 'kim김철수', 'li李ㄅ', 'user_01', '123', '_-.', 'نور', 'สมชาย', 'óla']) {
      expect(usernameProblem(name), name).toBeNull();
    }
    expect(isSingleScript('カタカナー')).toBe(true);
  });

  it('keeps the length rule in code points', () => {
    expect(usernameProblem('a'.repeat(12))).toBeNull();
    expect(usernameProblem('a'.repeat(13))).toBe('USERNAME_TOO_LONG');
    expect(usernameProblem('😀'.repeat(12))).toBeNull();
  });
});

describe('text rules', () => {
  it('spots NUL, controls and bidi characters', () => {
    expect(hasNul('a\u0000')).toBe(true);
    expect(hasNul('a\n')).toBe(false);
    expect(hasControlOrBidi('a\nb')).toBe(true);
    expect(hasControlOrBidi('a\u202eb')).toBe(true);
    expect(hasControlOrBidi('家族👨‍👩‍👧')).toBe(false);
  });
});

describe('username keys (issue 29)', () => {
  it('compare names ignoring case, compatibility forms and full case folding', () => {
    for (const [a, b] of [['root', 'ROOT'], ['root', 'ｒｏｏｔ'], ['Straße', 'STRASSE'], ['ΣΟΦΟΣ', 'σοφος'], ['ﬁsh', 'FISH'], ['admın', 'ADMIN']]) {
      expect(usernameKey(a), `${a} ~ ${b}`).toBe(usernameKey(b));
    }
    expect(usernameKey('Root')).toBe('root');
    expect(usernameKey('rööt')).not.toBe(usernameKey('root'));
  });
});
