import type { ProviderFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { discoverFixtures, envelopeProblems, typeProblems } from '../../test-support/fixture-types.js';

/**
 * Every provider fixture (`relay/adapters/<slug>/fixtures/*.json`) satisfies the type its envelope
 * names (issue 37, deliverable 2): an official SDK's type (`import('openai')…`,
 * `import('@anthropic-ai/sdk')…`, `import('@google/genai')…`) or the provider's documented schema
 * written once in its folder (`import('./wire-types.js').X`, relative to the provider folder).
 * One program checks them all; how, and how relative types resolve: test-support/fixture-types.ts.
 */
const found = discoverFixtures();

describe('provider fixture envelopes', () => {
  it('finds the fixtures of the provider folders', () => {
    expect(found.length).toBeGreaterThan(50);
  });

  it('every envelope names its source, a valid kind, its type, and carries a body or events', () => {
    const bad = found.flatMap((fx) => envelopeProblems(fx.fixture).map((p) => `${fx.slug}/fixtures/${fx.file}: ${p}`));
    expect(bad).toEqual([]);
  });

  it('the envelope check sees a missing source, an unknown kind or field, a stream without events, a status that is none', () => {
    expect(envelopeProblems({ source: ' ', kind: 'answer' as 'response', type: 'X', body: {} })).toEqual([
      'source is empty (name the doc page or SDK example)',
      'kind "answer" is not one of request|response|stream|error',
    ]);
    expect(envelopeProblems({ source: 's', kind: 'stream', type: 'X', body: {} })).toEqual(['a stream needs a non-empty events array', 'a stream carries events, not body']);
    // Baidu and Tencent answer errors with HTTP 200, Spark in a WebSocket frame: an error's status is any HTTP status, or none.
    expect(envelopeProblems({ source: 's', kind: 'error', type: 'X', body: {} })).toEqual([]);
    expect(envelopeProblems({ source: 's', kind: 'error', type: 'X', status: 200, body: {} })).toEqual([]);
    expect(envelopeProblems({ source: 's', kind: 'error', type: 'X', status: 42, body: {}, extra: 1 } as ProviderFixture)).toEqual(['unknown envelope field "extra"', 'status 42 is not an HTTP status']);
  });
});

describe('provider fixtures satisfy their declared types', () => {
  it('every fixture type-checks against its type (one program, strict options of packages/server)', { timeout: 120_000 }, () => {
    const problems = typeProblems(found.filter((fx) => envelopeProblems(fx.fixture).length === 0));
    expect(problems.map((p) => `${p.fixture}: ${p.message}`)).toEqual([]);
  });

  it('catches a wrong fixture: an excess field, a missing field, a wrong literal, an unresolved wire type', { timeout: 120_000 }, () => {
    const message = "import('@anthropic-ai/sdk').Anthropic.Messages.Message";
    const usage = { input_tokens: 1, output_tokens: 1, cache_creation_input_tokens: null, cache_read_input_tokens: null, cache_creation: null, server_tool_use: null, service_tier: null, inference_geo: null, output_tokens_details: null, speed: null };
    const good = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-5', content: [{ type: 'text', text: 'Hi', citations: null }], stop_reason: 'end_turn', stop_sequence: null, stop_details: null, container: null, diagnostics: null, usage };
    const problems = typeProblems([
      { slug: 'anthropic', file: 'good.json', fixture: { source: 's', kind: 'response', type: message, body: good } },
      { slug: 'anthropic', file: 'excess.json', fixture: { source: 's', kind: 'response', type: message, body: { ...good, extra: 1 } } },
      { slug: 'anthropic', file: 'missing.json', fixture: { source: 's', kind: 'response', type: message, body: { ...good, stop_reason: undefined } } },
      { slug: 'anthropic', file: 'literal.json', fixture: { source: 's', kind: 'stream', type: "import('@anthropic-ai/sdk').Anthropic.Messages.RawMessageStreamEvent", events: [{ type: 'message_stop' }, { type: 'mesage_stop' }] } },
      { slug: `no-such-provider-${process.pid}`, file: 'wire.json', fixture: { source: 's', kind: 'request', type: "import('./wire-types.js').Nope", body: {} } },
    ]);
    const by = (name: string) => problems.filter((p) => p.fixture.endsWith(`/${name}`)).map((p) => p.message).join('\n');
    expect(by('good.json')).toBe('');
    expect(by('excess.json')).toMatch(/'"extra"' does not exist in type 'Message'/);
    expect(by('missing.json')).toMatch(/Property '"?stop_reason"?' is missing/);
    expect(by('literal.json')).toMatch(/"mesage_stop"/);
    expect(by('wire.json')).toMatch(/Cannot find module '\.\/wire-types\.js'/);
    expect(problems.every((p) => ['good', 'excess', 'missing', 'literal', 'wire'].some((n) => p.fixture.endsWith(`/${n}.json`)))).toBe(true);
  });

  it('resolves a relative wire type from the provider folder, not from fixtures/', { timeout: 120_000 }, () => {
    // cohere/wire-types.ts declares CohereError ({ message }); a fixtures/-relative lookup would not find it.
    const ok = typeProblems([{ slug: 'cohere', file: 'x.json', fixture: { source: 's', kind: 'error', status: 429, type: "import('./wire-types.js').CohereError", body: { message: 'slow down' } } }]);
    expect(ok).toEqual([]);
  });
});
