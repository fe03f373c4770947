import { describe, expect, it } from 'vitest';
import { chatLinkUrl, chatSite, configuredChats, fillTemplate, maskedKey, serverAddress } from './chat-links';

describe('chat links', () => {
  it('fill {key} as sk-<key> and {address} encoded, as the reference does', () => {
    expect(fillTemplate('https://c.example/#/?settings={"key":"{key}","url":"{address}"}', 'abc', 'https://gw.example')).toBe(
      'https://c.example/#/?settings={"key":"sk-abc","url":"https%3A%2F%2Fgw.example"}',
    );
    expect(fillTemplate('opencat://team/join?domain={address}&token={key}&again={key}', 'k', 'http://h:3000')).toBe(
      'opencat://team/join?domain=http%3A%2F%2Fh%3A3000&token=sk-k&again=sk-k',
    );
  });

  it('give a ChatLink without placeholders the key and address in a settings fragment', () => {
    expect(chatLinkUrl('https://next.example/', 'abc', 'https://gw.example')).toBe(
      `https://next.example/#/?settings=${encodeURIComponent('{"key":"sk-abc","url":"https://gw.example"}')}`,
    );
    expect(chatLinkUrl('https://c.example/?k={key}', 'abc', 'x')).toBe('https://c.example/?k=sk-abc');
  });

  it('read the configured chats, skipping malformed entries, and fall back to this origin', () => {
    const chats = [{ A: 'https://a' }, null, { B: 3 }, {}, { C: 'https://c' }] as unknown as Array<Record<string, string>>;
    expect(configuredChats({ chats }).map((c) => c.name)).toEqual(['A', 'C']);
    expect(serverAddress({ server_address: 'https://gw.example/' })).toBe('https://gw.example');
    expect(serverAddress({ server_address: '' })).toBe(window.location.origin);
  });

  it('name the site a key goes to before it is opened, and show the key only masked (issue 35)', () => {
    expect(chatSite('https://chat.example.com:8443/#/?settings=x')).toBe('chat.example.com:8443');
    expect(chatSite('opencat://team/join?token=sk-k')).toBe('opencat://team');
    expect(chatSite('not a url {key}')).toBeNull();
    expect(maskedKey('abcdefghijklmnop')).toBe('sk-abcd…mnop');
    expect(maskedKey('short')).toBe('sk-…');
  });
});
