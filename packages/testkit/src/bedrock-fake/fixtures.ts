import { providerFixture, providerFixtureNames, type ProviderFixture } from '../provider-fixtures.js';
import { chunkFrame, exceptionFrame } from './event-stream.js';

/**
 * Bedrock's documented examples (server/src/relay/adapters/bedrock/fixtures): the fake builds its
 * answers, stream events and error bodies from them, and the adapter's tests frame the same
 * streams, so the fake and the adapter read one source.
 */
type Obj = Record<string, unknown>;

/** A documented error: the exception AWS names in `x-amzn-ErrorType`, its status and its JSON body. */
export interface BedrockDocumentedError {
  /** The fixture's name (`error.throttling`). */
  name: string;
  exception: string;
  status: number;
  body: { message: string } & Obj;
}

/**
 * The error fixtures. The envelope has no header field, so each note starts with the
 * `x-amzn-ErrorType: <Name>:…` header the error comes with; the name is read from there.
 */
export function bedrockDocumentedErrors(): BedrockDocumentedError[] {
  return providerFixtureNames('bedrock')
    .filter((n) => n.startsWith('error.'))
    .map((name) => {
      const fx = providerFixture('bedrock', name);
      const exception = /^x-amzn-ErrorType: (\w+):/.exec(fx.note ?? '')?.[1];
      if (!exception || fx.status === undefined) throw new Error(`bedrock fixture ${name}: the note must start with its x-amzn-ErrorType header, and the fixture needs a status`);
      return { name, exception, status: fx.status, body: fx.body as BedrockDocumentedError['body'] };
    });
}

/** One documented error by exception name. */
export function bedrockDocumentedError(exception: string): BedrockDocumentedError {
  const found = bedrockDocumentedErrors().find((e) => e.exception === exception);
  if (!found) throw new Error(`no bedrock error fixture documents ${exception}`);
  return found;
}

/** A documented answer body (`invoke.response`, `invoke.response.text`). */
export function bedrockDocumentedAnswer(name: string): Obj {
  return providerFixture('bedrock', name).body as Obj;
}

/** The first event of a documented stream of this `type`. */
export function bedrockDocumentedEvent(name: string, type: string): Obj {
  const found = (providerFixture('bedrock', name).events as Obj[]).find((e) => e.type === type);
  if (!found) throw new Error(`bedrock fixture ${name} has no ${type} event`);
  return found;
}

/**
 * A stream fixture as the bytes Bedrock sends: each event a `chunk` frame carrying it in base64
 * (with a padding field, as Bedrock adds), or, where `eventNames` names an exception, an
 * exception frame whose payload is the event itself.
 */
export function bedrockEventStream(fx: ProviderFixture): Buffer {
  const events = (fx.events ?? []) as Obj[];
  return Buffer.concat(
    events.map((event, i) => {
      const name = fx.eventNames?.[i] ?? 'chunk';
      if (name === 'chunk') return chunkFrame(event, 'abcdefghijklmnopqrstuvwxyz'.slice(0, 1 + (i % 26)));
      return exceptionFrame(name, event);
    }),
  );
}
