import { existsSync } from 'node:fs';
import { expectedChatUsage } from '@modelgate/testkit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ContractCase, ContractCaseModule, ContractContext, ContractFake, SentRequest } from '../../test-support/contract-case.js';
import { addCaller, addChannel, anthropicClient, consumeLogs, priceModels, startRelayHarness, type RelayHarness, type TestCaller } from '../../test-support/relay-fixtures.js';
import { startRecordingProxy } from '../../test-support/recording-proxy.js';
import { providerUnits, registeredAdapters } from './registry.js';

/**
 * The shared contract suite: every registered adapter, through the real pipeline with the
 * official SDKs as callers (OpenAI chat and Anthropic Messages), against a testkit fake of the
 * format it speaks, behind a recording hop so the adapter's own URL, headers and body can be
 * asserted. No provider is named here: each provider folder's `contract.case.ts` says what its
 * adapters must send (test-support/contract-case.ts), and an adapter without a case fails.
 */

/** Each provider folder's cases, found from the registry's own discovery. */
const folderCases = await Promise.all(
  providerUnits().map(async (u) => {
    if (!existsSync(new URL(`./${u.folder}/contract.case.ts`, import.meta.url))) return { folder: u.folder, cases: [] };
    const mod = (await import(`./${u.folder}/contract.case.ts`)) as ContractCaseModule;
    return { folder: u.folder, cases: mod.contractCases };
  }),
);
const caseOf = new Map<string, ContractCase>(folderCases.flatMap(({ cases }) => cases.map((c) => [c.slug, c] as const)));

const runs = registeredAdapters().flatMap((adapter) => adapter.types.map((type) => ({ slug: adapter.slug, type, adapter, c: caseOf.get(adapter.slug) })));

describe('contract cases', () => {
  it.each(registeredAdapters().map((a) => ({ slug: a.slug })))('adapter $slug has a contract case in its folder', ({ slug }) => {
    expect(caseOf.has(slug), `relay/adapters/<folder>/contract.case.ts has no case for ${slug}`).toBe(true);
  });

  it('every case names a registered adapter', () => {
    const slugs = new Set(registeredAdapters().map((a) => a.slug));
    expect([...caseOf.keys()].filter((s) => !slugs.has(s))).toEqual([]);
  });
});

interface Hop {
  url: string;
  seen: Array<Omit<SentRequest, 'json'> & { body: Buffer }>;
  close(): Promise<void>;
}

let h: RelayHarness;
let caller: TestCaller;
const fakes = new Map<string, ContractFake>();
const hops = new Map<string, Hop>();

beforeAll(async () => {
  h = await startRelayHarness();
  // A key's side URL (a service account's token_uri) is another loopback host behind the hop: fetched through the guard, which needs loopback allowed.
  await h.server.ctx.options.set('OutboundAllowedRanges', '127.0.0.1/32');
  for (const { c } of runs) {
    if (!c || fakes.has(c.fake)) continue;
    const fake = await c.startFake({ openai: h.fake });
    fakes.set(c.fake, fake);
    const received = fake.received;
    hops.set(
      c.fake,
      received
        ? {
            url: fake.url,
            get seen() {
              return received();
            },
            close: () => Promise.resolve(),
          }
        : await startRecordingProxy(fake.url, c.hop),
    );
  }
  // Each case's caller-facing model names: priced, since an unpriced model is refused before any upstream call.
  await priceModels(h, runs.flatMap(({ type }) => [`contract-${type}`, `contract-${type}-embed`]));
  caller = await addCaller(h, { quota: 100_000_000, remain: 100_000_000 });
});
afterAll(async () => {
  for (const hop of hops.values()) await hop.close();
  for (const fake of fakes.values()) await fake.close();
  await h.close();
});

describe.each(runs.filter((r) => r.c !== undefined))('adapter $slug (type $type)', ({ type, adapter, c: maybeCase }) => {
  const c = maybeCase!;
  const model = `contract-${type}`;
  const messages = [{ role: 'user' as const, content: 'one two three' }];
  let channelId = 0;
  let cx: ContractContext;

  beforeAll(async () => {
    const hop = hops.get(c.fake)!;
    const key = fakes.get(c.fake)!.channelKey ?? c.key ?? `key-${type}`;
    cx = { type, key, model: c.model, userId: caller.userId, messages };
    channelId = await addChannel(h.root, {
      type,
      base_url: c.baseUrl ? c.baseUrl(hop.url) : hop.url,
      key,
      models: c.embedModel ? `${model},${model}-embed` : model,
      other: c.other ?? '',
      model_mapping: JSON.stringify({ [model]: c.model, ...(c.embedModel ? { [`${model}-embed`]: c.embedModel } : {}) }),
    });
  });

  const hop = () => hops.get(c.fake)!;
  const lastSent = (): SentRequest => {
    const sent = hop().seen.at(-1)!;
    return { ...sent, json: JSON.parse(sent.body.toString()) as Record<string, unknown> };
  };

  it.runIf(adapter.modes.has('chat'))('relays a chat completion: URL, auth header, body, usage billed', async () => {
    hop().seen.length = 0;
    const res = await caller.client.chat.completions.create({ model, messages, temperature: 0, user: 'u-1', metadata: { a: 'b' } } as never);
    expect((res as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(c.text);
    const sent = lastSent();
    expect(c.chat.pathOnly ? sent.url.split('?')[0] : sent.url).toBe(c.chat.path);
    if (c.chat.auth) c.chat.auth(sent, cx);
    else expect(sent.headers.authorization).toBe(`Bearer ${cx.key}`);
    const log = (await consumeLogs(h, caller.userId)).at(-1)!;
    expect(Number(log.channel_id)).toBe(channelId);
    if (c.chat.converted) {
      expect(sent.json).toEqual(c.chat.converted.body(cx));
      expect(Number(log.prompt_tokens)).toBe(c.chat.converted.promptTokens(sent.json, cx));
    } else {
      // Passed through: unknown fields and zero values reach the upstream untouched.
      expect(sent.json).toMatchObject({ model: c.model, temperature: 0, user: 'u-1', metadata: { a: 'b' } });
      expect(Number(log.prompt_tokens)).toBe(expectedChatUsage({ messages }).prompt_tokens);
    }
  });

  it.runIf(adapter.modes.has('chat'))('relays a stream with usage either reported or counted', async () => {
    hop().seen.length = 0;
    const stream = await caller.client.chat.completions.create({ model, messages, stream: true, stream_options: { include_usage: true } });
    let text = '';
    let usage: { completion_tokens: number } | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe(c.text);
    expect(usage?.completion_tokens).toBeGreaterThan(0);
    const sent = lastSent();
    if (c.stream?.path) expect(sent.url).toBe(c.stream.path);
    if (c.stream?.body) expect(sent.json).toMatchObject(c.stream.body);
    if (c.stream?.asksUsage && adapter.streamOptions) expect(sent.json.stream_options).toEqual({ include_usage: true });
    else expect(sent.json.stream_options).toBeUndefined();
  });

  it.runIf(adapter.modes.has('chat'))('serves an Anthropic Messages caller (passed through, or converted to the upstream format)', async () => {
    hop().seen.length = 0;
    const claude = anthropicClient(h, caller);
    const msg = await claude.messages.create({ model, max_tokens: 50, messages });
    expect(msg).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'text', text: c.text }], stop_reason: 'end_turn' });
    expect(msg.usage.output_tokens).toBe(5);
    const events: string[] = [];
    let streamed = '';
    for await (const ev of await claude.messages.create({ model, max_tokens: 50, messages, stream: true })) {
      events.push(ev.type);
      if (ev.type === 'content_block_delta' && ev.delta.type === 'text_delta') streamed += ev.delta.text;
    }
    expect(streamed).toBe(c.text);
    expect(events[0]).toBe('message_start');
    expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    if (c.messagesStreamBody) expect(lastSent().json).toEqual(c.messagesStreamBody(cx));
  });

  it.runIf(adapter.modes.has('embeddings') && !(c.embeddings && 'skip' in c.embeddings))('relays embeddings', async () => {
    const res = await caller.client.embeddings.create({ model: c.embedModel ? `${model}-embed` : model, input: 'alpha beta' });
    expect(res.data).toHaveLength(1);
    const path = c.embeddings && 'path' in c.embeddings ? c.embeddings.path : undefined;
    if (path) expect(hop().seen.at(-1)!.url).toBe(path);
  });

  it.runIf(!adapter.modes.has('images'))('refuses an operation it does not support with a typed error', async () => {
    const err = await caller.client.images.generate({ model, prompt: 'x' }).catch((e: unknown) => e);
    expect(err).toMatchObject({ status: 501, code: 'channel_unsupported' });
  });
});
