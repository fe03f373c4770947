import { createParser, type EventSourceMessage } from 'eventsource-parser';
import type { UpstreamEvent } from './types.js';

/**
 * Decodes an SSE body into events as its bytes arrive (eventsource-parser: `\n`, `\r\n` and `\r`
 * line ends, `event:` lines, comments ignored). Only the events of the chunk at hand are held, so a
 * stream of any length costs constant memory. A last event without its blank line is still
 * delivered when the body ends cleanly.
 */
export async function* sseEvents(body: AsyncIterable<Buffer>): AsyncGenerator<UpstreamEvent> {
  const decoder = new TextDecoder();
  let ready: UpstreamEvent[] = [];
  const parser = createParser({
    onEvent: (m: EventSourceMessage) => {
      ready.push({ event: m.event, data: m.data });
    },
  });
  const drain = function* (): Generator<UpstreamEvent> {
    const batch = ready;
    ready = [];
    yield* batch;
  };
  for await (const chunk of body) {
    parser.feed(decoder.decode(chunk, { stream: true }));
    if (ready.length) yield* drain();
  }
  parser.feed(`${decoder.decode()}\n\n`);
  yield* drain();
}
