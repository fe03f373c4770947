import { CHANNEL_TYPES, channelTypeInfo, isChannelType } from '@modelgate/shared';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { adapterFor, ADAPTERS, CONTRACT_VERSION } from './registry.js';
import { taskAdapterFor } from './task-registry.js';

describe('adapter registry and the shared channel-type table', () => {
  it('registers only types the shared table knows, so channel saves accept every relayable type', () => {
    for (const a of ADAPTERS) for (const t of a.types) expect(isChannelType(t), `${a.slug} type ${t}`).toBe(true);
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
    for (const a of ADAPTERS) {
      expect(a.defaultBaseUrl, a.slug).toBe(channelTypeInfo(a.types[0]!)!.baseUrl);
      if (a.slug in expected) expect(a.defaultBaseUrl, a.slug).toBe(expected[a.slug]);
    }
  });
});

describe('contract version and docs/providers.md', () => {
  it('every adapter implements contract v2', () => {
    for (const a of ADAPTERS) expect(a.contract, a.slug).toBe(CONTRACT_VERSION);
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
      else if (task) expect(row, `type ${type}`).toEqual([`\`${task.slug}\``, `tasks at \`/${task.platform}/*\` (no \`/v1\` mode)`]);
      else expect(row, `type ${type}`).toEqual(['—', '— (501)']);
    }
  });
});
