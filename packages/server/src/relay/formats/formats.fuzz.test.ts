import type { Usage } from '@modelgate/shared';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { anyJson } from '../../test-support/schema-arbitrary.js';
import { anthropicBody, embeddingsBody, geminiBody, openAIChatBody, responsesBody, upstreamEvent, upstreamReply } from '../../test-support/wire-arbitrary.js';
import { RelayError } from '../relay-error.js';
import { converterFor, specOf, streamConverterFor } from './registry.js';
import type { BodyConverter, ConvertContext, FormatConverter, TextFormat, WireFormat } from './types.js';
import { VENDOR_CASES } from '../../test-support/vendor-format-cases.js';

/**
 * Issue 22 item 5 (b): every converter of relay/formats, fed arbitrary and format-shaped JSON
 * (FUZZ_CONVERTER_RUNS cases per function, 10 000 by default), throws nothing but the relay's own
 * RelayError — a 4xx the caller is told in its format — and never hangs. A TypeError here would be
 * a 500 on the relay. Seed: FUZZ_SEED (fixed by default; fast-check prints it on failure).
 */
const RUNS = Number(process.env.FUZZ_CONVERTER_RUNS ?? 10_000);
const SEED = Number(process.env.FUZZ_SEED ?? 22_05);
const opts = { numRuns: RUNS, seed: SEED };

type Json = ReturnType<typeof JSON.parse>;
type Obj = Record<string, Json>;

/** Runs `fn`; a RelayError is a declared refusal (a 4xx with a message), anything else fails the property. */
export function declaredOnly(fn: () => unknown): void {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
    expect(err.status).toBeGreaterThanOrEqual(400);
    expect(err.status).toBeLessThan(500);
    expect(err.message.length).toBeGreaterThan(0);
  }
}

const cx = (flags: { stream: boolean; usage: boolean; jsonArray: boolean }, body: Obj | null = null): ConvertContext => ({
  lang: 'en',
  model: 'm-up',
  callerModel: 'm',
  clientWantsUsage: flags.usage,
  requestId: 'req-1',
  stream: flags.stream,
  jsonArray: flags.jsonArray,
  callerBody: body,
  pending: [],
});
const flags = fc.record({ stream: fc.boolean(), usage: fc.boolean(), jsonArray: fc.boolean() });
const usage: fc.Arbitrary<Usage> = fc.record({ promptTokens: fc.nat(10_000), completionTokens: fc.nat(10_000), cachedTokens: fc.nat(100), reasoningTokens: fc.nat(100) }) as fc.Arbitrary<Usage>;
const wireError = fc.record({ status: fc.constantFrom(400, 401, 429, 500, 503), type: fc.string({ maxLength: 8 }), code: fc.option(fc.string({ maxLength: 8 }), { nil: null }), param: fc.constant(null), message: fc.string({ maxLength: 20 }) });

const TEXT_FORMATS: TextFormat[] = ['openai-chat', 'openai-completions', 'anthropic-messages', 'gemini', 'openai-responses', 'cohere-chat'];
/** What a caller of each format sends (Cohere is an upstream format only: arbitrary objects). */
const CALLER_BODY: Record<TextFormat, fc.Arbitrary<Obj>> = {
  'openai-chat': openAIChatBody,
  'openai-completions': openAIChatBody,
  'anthropic-messages': anthropicBody,
  gemini: geminiBody,
  'openai-responses': responsesBody,
  'cohere-chat': fc.object({ maxDepth: 2, maxKeys: 5 }) as fc.Arbitrary<Obj>,
};
const anyObject = (a: fc.Arbitrary<Obj>) => fc.oneof({ arbitrary: a, weight: 4 }, { arbitrary: fc.object({ maxDepth: 2, maxKeys: 5 }) as fc.Arbitrary<Obj>, weight: 1 });

const PAIRS: Array<[TextFormat, TextFormat, FormatConverter]> = TEXT_FORMATS.flatMap((from) =>
  TEXT_FORMATS.filter((to) => to !== from).flatMap((to) => {
    const c = streamConverterFor(from, to);
    return c ? [[from, to, c] as [TextFormat, TextFormat, FormatConverter]] : [];
  }),
);
const EMBEDDING_FORMATS: WireFormat[] = ['openai-embeddings', 'gemini-embeddings', 'gemini-embed-content', 'cohere-embed', 'ollama-embed'];
const BODY_PAIRS: Array<[WireFormat, WireFormat, BodyConverter]> = EMBEDDING_FORMATS.flatMap((from) =>
  EMBEDDING_FORMATS.filter((to) => to !== from).flatMap((to) => {
    const c = converterFor(from, to);
    return c ? [[from, to, c] as [WireFormat, WireFormat, BodyConverter]] : [];
  }),
);

describe(`format converters under ${RUNS} generated bodies per function`, () => {
  it('covers every registered and composed pair', () => {
    // The four caller formats to the four upstream text formats (pairs without a converter of their own composed through chat).
    expect(PAIRS.map(([f, t]) => `${f}>${t}`)).toEqual([
      'openai-chat>anthropic-messages',
      'openai-chat>gemini',
      'openai-chat>cohere-chat',
      'anthropic-messages>openai-chat',
      'anthropic-messages>gemini',
      'anthropic-messages>cohere-chat',
      'gemini>openai-chat',
      'gemini>anthropic-messages',
      'gemini>cohere-chat',
      'openai-responses>openai-chat',
      'openai-responses>anthropic-messages',
      'openai-responses>gemini',
      'openai-responses>cohere-chat',
    ]);
    expect(BODY_PAIRS.map(([f, t]) => `${f}>${t}`)).toEqual([
      'openai-embeddings>gemini-embeddings',
      'openai-embeddings>cohere-embed',
      'openai-embeddings>ollama-embed',
      'gemini-embeddings>openai-embeddings',
      'gemini-embed-content>openai-embeddings',
      'gemini-embed-content>gemini-embeddings',
    ]);
  });

  for (const [from, to, c] of PAIRS) {
    describe(`${from} → ${to}`, () => {
      it('request', () => {
        fc.assert(fc.property(anyObject(CALLER_BODY[from]), flags, (body, f) => declaredOnly(() => c.request(structuredClone(body), cx(f, body)))), opts);
      });
      it('response (and usage written into it)', () => {
        fc.assert(
          fc.property(upstreamReply, flags, usage, (reply, f, u) =>
            declaredOnly(() => {
              const out = c.response(structuredClone(reply), cx(f));
              c.withUsage?.(out, u);
              JSON.stringify(out);
            }),
          ),
          opts,
        );
      });
      it('stream: upstream events through the reader and the writer, then the end or a failure', () => {
        const reader = specOf(to)!;
        fc.assert(
          fc.property(fc.array(upstreamEvent, { maxLength: 6 }), flags, usage, fc.option(wireError), (events, f, u, failure) =>
            declaredOnly(() => {
              const w = c.stream(cx({ ...f, stream: true }));
              const read = reader.reader();
              for (const ev of events) expect(typeof w.write(ev, read.read(ev))).toBe('string');
              expect(typeof (failure ? w.fail(failure) : w.end({ usage: u, reported: f.usage }))).toBe('string');
            }),
          ),
          opts,
        );
      });
    });
  }

  for (const [from, to, c] of BODY_PAIRS) {
    it(`${from} → ${to}: request and response`, () => {
      fc.assert(
        fc.property(anyObject(embeddingsBody), anyObject(upstreamReply as fc.Arbitrary<Obj>), flags, (body, reply, f) => {
          declaredOnly(() => c.request(structuredClone(body), cx(f, body)));
          declaredOnly(() => c.response(structuredClone(reply), cx(f, body)));
          declaredOnly(() => c.usage?.(structuredClone(reply)));
        }),
        opts,
      );
    });
  }

  for (const format of TEXT_FORMATS) {
    it(`${format} spec: usage, text, prompt, limits, errors and its own stream`, () => {
      const spec = specOf(format)!;
      fc.assert(
        fc.property(anyObject(CALLER_BODY[format]), upstreamReply, fc.array(upstreamEvent, { maxLength: 5 }), fc.integer({ min: 1, max: 1e6 }), wireError, flags, (body, reply, events, n, err, f) => {
          declaredOnly(() => {
            spec.usage(reply as Obj);
            expect(typeof spec.responseText(reply as Obj)).toBe('string');
            spec.embeddedError?.(reply as Obj);
            if (spec.promptAsChat) JSON.stringify(spec.promptAsChat(structuredClone(body)));
            const edited = structuredClone(body);
            spec.setMaxTokens(edited, n, 'm');
            spec.setModel?.(edited, 'm2');
            spec.streamUsage?.(edited, f.usage);
            JSON.stringify(spec.errorBody(err));
            const read = spec.reader();
            const pass = spec.passthrough(cx({ ...f, stream: true }));
            for (const ev of events) expect(typeof pass.write(ev, read.read(ev))).toBe('string');
            pass.end({ usage: { promptTokens: 1, completionTokens: 1 } as Usage, reported: false });
          });
        }),
        opts,
      );
    });
  }

  for (const v of VENDOR_CASES) {
    it(`vendor format: ${v.name}`, async () => {
      if (v.sync) fc.assert(fc.property(anyObject(v.input ?? (anyJson as fc.Arbitrary<Obj>)), (input) => declaredOnly(() => v.sync!(structuredClone(input)))), opts);
      else await fc.assert(fc.asyncProperty(fc.array(upstreamEvent, { maxLength: 5 }), async (events) => declaredOnlyAsync(() => v.stream!(events))), { ...opts, numRuns: Math.min(RUNS, 2_000) });
    });
  }
});

async function declaredOnlyAsync(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (!(err instanceof RelayError)) throw err;
  }
}
