import { describe, expect, it } from 'vitest';
import { langFromHeader, relayLangFromHeader, SERVER_MESSAGES } from './messages.js';

describe('answer language', () => {
  it('the console: Chinese unless it asks for English', () => {
    expect(langFromHeader(undefined)).toBe('zh');
    expect(langFromHeader('en-US,en;q=0.9')).toBe('en');
    expect(langFromHeader('zh-CN')).toBe('zh');
  });

  it('the relay: English for SDKs that name no language (or another one), Chinese when the caller prefers it', () => {
    expect(relayLangFromHeader(undefined)).toBe('en');
    expect(relayLangFromHeader('')).toBe('en');
    expect(relayLangFromHeader('*')).toBe('en');
    expect(relayLangFromHeader('fr-FR,fr;q=0.9')).toBe('en');
    expect(relayLangFromHeader('zh-CN,zh;q=0.9,en;q=0.8')).toBe('zh');
    expect(relayLangFromHeader(' ZH-tw ')).toBe('zh');
    expect(relayLangFromHeader('en,zh;q=0.5')).toBe('en');
  });

  it('every server message has both languages', () => {
    const missing = Object.entries(SERVER_MESSAGES).filter(([, m]) => !m.zh.trim() || !m.en.trim());
    expect(missing).toEqual([]);
  });
});
