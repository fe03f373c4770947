import { emptyUsage, type Usage } from '@modelgate/shared';
import { providerFixture, type ProviderFixture } from '@modelgate/testkit';
import { loadProviders, registeredAdapters } from '../relay/adapters/registry.js';
import type { Adapter, ChannelTarget, RelayMode, UpstreamCall } from '../relay/adapters/types.js';
import { framesToEvents } from '../relay/formats/compose.js';
import type { ConvertContext, WireError, WireFormat } from '../relay/formats/types.js';
import { testContext } from './convert-fixtures.js';

/**
 * Drives an adapter object directly with a provider's fixtures (no server, no socket): the
 * request it builds, the reply and stream it reads back, the error it classifies. For the
 * `<slug>.formats.test.ts` files of the provider folders.
 */

// The converters an adapter composes are registered by the provider folders: loaded once, before any test reads them.
await loadProviders();

/** The registered adapter of a slug (a provider folder may serve several, the OpenAI-compatible vendors). */
export function adapterOf(slug: string): Adapter {
  const found = registeredAdapters().find((a) => a.slug === slug);
  if (!found) throw new Error(`no adapter ${slug} is registered`);
  return found;
}

/** A channel of the adapter's first type with the given fields. */
export function channelOf(adapter: Adapter, over: Partial<ChannelTarget> = {}): ChannelTarget {
  return { id: 1, type: adapter.types[0]!, key: 'sk-test', baseUrl: '', other: '', organization: '', setting: {}, ...over };
}

/** One attempt of `adapter` for `mode`, the upstream format chosen as the pipeline would. */
export function callOf(adapter: Adapter, o: { mode?: RelayMode; inbound?: WireFormat; model: string; stream?: boolean; ch?: Partial<ChannelTarget>; userId?: number }): UpstreamCall {
  const mode = o.mode ?? 'chat';
  const inbound = o.inbound ?? 'openai-chat';
  const upstream = adapter.upstreamFormat(mode, inbound, o.model);
  if (!upstream) throw new Error(`${adapter.slug} serves no ${inbound} ${mode}`);
  return { ch: channelOf(adapter, o.ch), mode, inbound, upstream, model: o.model, stream: o.stream ?? false, clientHeaders: {}, userId: o.userId };
}

/** The request the adapter sends for a caller body: URL, headers and the parsed JSON body (signed). */
export async function builtRequest(adapter: Adapter, call: UpstreamCall, body: Record<string, unknown>, cx: ConvertContext = testContext(call.model, { stream: call.stream })): Promise<{ url: string; headers: Record<string, string>; body: Record<string, unknown> }> {
  const raw = Buffer.from(JSON.stringify(body));
  const req = await adapter.sign(await adapter.buildRequest(call, { body, raw, contentType: 'application/json', callerModel: String(body.model ?? call.model), cx }), call);
  return { url: req.url, headers: req.headers, body: JSON.parse(typeof req.body === 'string' ? req.body : req.body.toString('utf8')) as Record<string, unknown> };
}

/** A stream fixture as the SSE bytes the provider sends: each event (named when it names them), then `[DONE]` when asked. */
export function sseOf(fx: ProviderFixture, o: { done?: boolean } = {}): string {
  const events = fx.events ?? [];
  let out = events.map((e, i) => `${fx.eventNames?.[i] ? `event: ${fx.eventNames[i]}\n` : ''}data: ${JSON.stringify(e)}\n\n`).join('');
  if (o.done) out += 'data: [DONE]\n\n';
  return out;
}

export interface StreamReplay {
  /** Every frame written to the caller, parsed (a non-JSON `data:` such as `[DONE]` stays a string). */
  frames: unknown[];
  /** The usage the upstream reported (last one read), and whether it was final. */
  usage: Usage | undefined;
  usageFinal: boolean;
  /** The text the reader counted. */
  text: string;
  /** The error the stream reported, if any (then `fail` wrote the caller's error frame). */
  error: WireError | undefined;
}

async function* once(bytes: string): AsyncGenerator<Buffer> {
  yield Buffer.from(bytes);
}

/**
 * The stream as the pipeline relays it (stream-pump.ts): events read, written one at a time; an
 * error ends it with the caller's error frame; otherwise `end` with the reported usage, or with
 * `counted` as the local count when none was final.
 */
export async function replayStream(adapter: Adapter, call: UpstreamCall, cx: ConvertContext, bytes: string, counted: Usage = emptyUsage()): Promise<StreamReplay> {
  const t = adapter.streamTransformer(call, cx);
  let written = '';
  const out: StreamReplay = { frames: [], usage: undefined, usageFinal: false, text: '', error: undefined };
  for await (const ev of t.events(once(bytes))) {
    const facts = t.reader.read(ev);
    if (facts.usage) {
      out.usage = facts.usage;
      out.usageFinal = facts.usageFinal === true;
    }
    if (facts.error) {
      out.error = facts.error;
      written += t.writer.fail(facts.error);
      break;
    }
    out.text += facts.text;
    written += t.writer.write(ev, facts);
  }
  if (!out.error) written += t.writer.end({ usage: out.usage && out.usageFinal ? out.usage : counted, reported: out.usageFinal });
  out.frames = framesToEvents(written).map((e) => {
    try {
      return JSON.parse(e.data) as unknown;
    } catch {
      return e.data;
    }
  });
  return out;
}

/** A provider's error fixture classified by the adapter: its status and body as the upstream sent them. */
export function classifiedFixture(adapter: Adapter, slug: string, name: string) {
  const fx = providerFixture(slug, name);
  const status = fx.status ?? 200;
  // An error inside a 200 is read as the upstream client reads it (upstream-client.ts errorReply).
  return status < 300 ? adapter.classifyError(undefined, 500, JSON.stringify(fx.body)) : adapter.classifyError(status, status, JSON.stringify(fx.body));
}

/** A fixture's body as an object (request or answer fixtures). */
export function fixtureBody(slug: string, name: string): Record<string, unknown> {
  return providerFixture(slug, name).body as Record<string, unknown>;
}
