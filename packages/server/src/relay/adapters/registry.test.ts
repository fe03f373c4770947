import { CHANNEL_TYPES, channelTypeInfo, isChannelType } from '@modelgate/shared';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it, vi } from 'vitest';
import { adapterFor, CONTRACT_VERSION, providerFolders, providerUnits, registeredAdapters } from './registry.js';
import { taskAdapterFor } from './task-registry.js';

describe('adapter registry and the shared channel-type table', () => {
  it('registers only types the shared table knows, so channel saves accept every relayable type', () => {
    for (const a of registeredAdapters()) for (const t of a.types) expect(isChannelType(t), `${a.slug} type ${t}`).toBe(true);
  });

  it('takes each default upstream address from the shared table (the one the console shows)', () => {
    const expected: Record<string, string> = {
      openai: 'https://api.openai.com',
      azure: '',
      custom: '',
      ollama: 'http://localhost:11434',
      'openai-max': 'https://api.openaimax.com',
      ai360: 'https://ai.360.cn',
      openrouter: 'https://openrouter.ai/api',
      fastgpt: 'https://fastgpt.run/api/openapi',
      deepseek: 'https://api.deepseek.com',
      mistral: 'https://api.mistral.ai',
    };
    for (const a of registeredAdapters()) {
      expect(a.defaultBaseUrl, a.slug).toBe(channelTypeInfo(a.types[0]!)!.baseUrl);
      if (a.slug in expected) expect(a.defaultBaseUrl, a.slug).toBe(expected[a.slug]);
    }
  });
});

describe('contract version and docs/providers.md', () => {
  it('every adapter implements contract v3', () => {
    for (const a of registeredAdapters()) expect(a.contract, a.slug).toBe(CONTRACT_VERSION);
  });

  it('the providers table lists every channel type with the modes its adapter really serves (task relays, or 501)', () => {
    const doc = readFileSync(new URL('../../../../../docs/providers.md', import.meta.url), 'utf8');
    const rows = new Map<number, string[]>();
    for (const line of doc.split('\n')) {
      const m = /^\| (\d+) \| [^|]+ \| ([^|]+) \| ([^|]+) \|/.exec(line);
      if (m) rows.set(Number(m[1]), [m[2]!.trim(), m[3]!.trim()]);
    }
    for (const [type] of CHANNEL_TYPES) {
      const a = adapterFor(type);
      const row = rows.get(type);
      expect(row, `type ${type} is missing from docs/providers.md`).toBeDefined();
      const task = taskAdapterFor(type);
      if (a) expect(row, `type ${type}`).toEqual([`\`${a.slug}\``, [...a.modes].join(', ')]);
      else if (task) expect(row, `type ${type}`).toEqual([`\`${task.slug}\``, task.docsModes ?? `tasks at \`/${task.platform}/*\` (no \`/v1\` mode)`]);
      else expect(row, `type ${type}`).toEqual(['—', '— (501)']);
    }
  });
});

describe('providers register themselves', () => {
  const here = new URL('.', import.meta.url);

  it('every folder with an adapter module is a provider unit, found without a list', () => {
    const folders = readdirSync(here, { withFileTypes: true })
      .filter((e) => e.isDirectory() && existsSync(new URL(`${e.name}/adapter.ts`, here)))
      .map((e) => e.name)
      .sort();
    expect(providerFolders()).toEqual(folders);
    expect(providerUnits().map((u) => u.folder)).toEqual(folders);
    for (const u of providerUnits()) expect(u.adapters.length, u.folder).toBeGreaterThan(0);
    // The task kinds (Midjourney, Suno) register in task-registry.ts, not here.
    expect(folders).not.toContain('midjourney');
  });

  it('lists adapters by channel type, each type once', () => {
    const firstTypes = registeredAdapters().map((a) => Math.min(...a.types));
    expect(firstTypes).toEqual([...firstTypes].sort((a, b) => a - b));
    expect(registeredAdapters()[0]!.slug).toBe('openai');
    for (const a of registeredAdapters()) for (const t of a.types) expect(adapterFor(t), `type ${t}`).toBe(a);
  });

  it('a registry read before loadProviders() throws instead of answering "no adapter", and the load fills both registries', async () => {
    vi.resetModules();
    const adapters = await import('./registry.js');
    const formats = await import('../formats/registry.js');
    expect(() => adapters.adapterFor(1)).toThrow(/before the provider folders were loaded: await loadProviders\(\)/);
    expect(() => adapters.registeredAdapters()).toThrow(formats.ProvidersNotLoadedError);
    expect(() => formats.specOf('anthropic-messages')).toThrow(formats.ProvidersNotLoadedError);
    expect(() => formats.converterFor('openai-chat', 'gemini')).toThrow(formats.ProvidersNotLoadedError);
    // The hub's own formats need no provider.
    expect(formats.specOf('openai-chat')?.name).toBe('openai-chat');
    expect(formats.specOf('openai-embeddings')).toBeUndefined();
    const once = adapters.loadProviders();
    expect(adapters.loadProviders()).toBe(once);
    await once;
    expect(adapters.registeredAdapters().map((a) => a.slug)).toEqual(registeredAdapters().map((a) => a.slug));
    expect(formats.specOf('anthropic-messages')?.name).toBe('anthropic-messages');
    expect(formats.converterFor('openai-chat', 'gemini')).toBeDefined();
    expect(formats.specOf('no-such-format' as 'gemini')).toBeUndefined();
    // Registration is closed once the providers are in: composed converters are cached from then on.
    expect(() => formats.registerFormats('late', {})).toThrow(/after the registry was sealed/);
  });
});
