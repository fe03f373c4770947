import { emptyUsage, type Usage } from '@modelgate/shared';
import { countText } from '../billing/token-counter.js';

/**
 * What the upstream sent of the response in progress, kept so that a response that ends without
 * its `response.done` (the client left and the upstream never finished, or the upstream closed)
 * is still billed: the rule is the relay's usual one for a stream without usage (usage-count.ts,
 * `countedStreamUsage`): the output that came through, counted locally.
 *
 * - Text: the `response.text.delta`, `response.audio_transcript.delta` and
 *   `response.function_call_arguments.delta` strings, tokenised with the model's encoder.
 * - Audio: the decoded bytes of the `response.audio.delta` events at OpenAI's documented rate for
 *   assistant audio, 1 token per 50 ms (docs guides/realtime-costs): 2 400 bytes of pcm16 at
 *   24 kHz mono, 400 bytes of G.711 (8 kHz, 8 bit) when the session's output format says so.
 *   Audio tokens are output tokens too, billed at the audio ratios.
 * - Input: unknown until `response.done` (the whole conversation is the prompt), so the estimate
 *   has none; the session bills at least the response's hold instead (realtime-billing.ts).
 */
const PCM16_BYTES_PER_OUTPUT_TOKEN = 2400;
const G711_BYTES_PER_OUTPUT_TOKEN = 400;

const TEXT_DELTA = /"response\.(?:text|audio_transcript|function_call_arguments)\.delta"/;
const AUDIO_DELTA = '"response.audio.delta"';
const DELTA_KEY = Buffer.from('"delta"');
const QUOTE = 0x22;
/** `:` and JSON whitespace. */
const SEPARATORS = new Set([0x3a, 0x20, 0x09, 0x0a, 0x0d]);
const PAD = 0x3d;

/** Bytes a base64 string of `length` characters ending in `padding` `=` signs decodes to. */
function base64Bytes(length: number, padding: number): number {
  return Math.max(0, Math.floor((length * 3) / 4) - padding);
}

export class ResponseTally {
  private readonly texts: string[] = [];
  private audioBytes = 0;
  /** Set once anything was generated: a response that produced nothing gives its hold back. */
  produced = false;

  constructor(private readonly bytesPerAudioToken: number) {}

  /**
   * Counts one upstream text frame whose first bytes are `head`. Audio deltas are measured where
   * they lie (base64 has no quote to escape), without parsing or copying the frame.
   */
  add(head: string, frame: Buffer): void {
    if (head.includes(AUDIO_DELTA)) {
      const at = frame.indexOf(DELTA_KEY);
      if (at < 0) return;
      // The value's opening quote, past the colon and any whitespace a serialiser put there.
      let start = at + DELTA_KEY.length;
      while (start < frame.length && SEPARATORS.has(frame[start]!)) start++;
      if (frame[start] !== QUOTE) return;
      start++;
      const end = frame.indexOf(QUOTE, start);
      if (end <= start) return;
      const padding = (frame[end - 1] === PAD ? 1 : 0) + (frame[end - 2] === PAD ? 1 : 0);
      this.audioBytes += base64Bytes(end - start, padding);
      this.produced = true;
      return;
    }
    if (!TEXT_DELTA.test(head)) return;
    try {
      const delta = (JSON.parse(frame.toString('utf8')) as { delta?: unknown }).delta;
      if (typeof delta === 'string' && delta) {
        this.texts.push(delta);
        this.produced = true;
      }
    } catch {
      // A malformed frame carries nothing countable.
    }
  }

  /** The output of the response so far as a usage (no input side: see above). */
  async usage(model: string): Promise<Usage> {
    const text = await countText(model, this.texts.join(''));
    const audio = Math.ceil(this.audioBytes / this.bytesPerAudioToken);
    return { ...emptyUsage(), completionTokens: text + audio, audioOutputTokens: audio };
  }
}

/**
 * Bytes per output audio token for a session's `session.created` / `session.updated` body: the
 * beta `output_audio_format` (`pcm16`, `g711_ulaw`, `g711_alaw`) or the GA `audio.output.format`
 * (`audio/pcm`, `audio/pcmu`, `audio/pcma`); pcm16 when it says nothing.
 */
export function audioBytesPerToken(session: unknown): number | undefined {
  if (!session || typeof session !== 'object') return undefined;
  const s = session as { output_audio_format?: unknown; audio?: { output?: { format?: { type?: unknown } } } };
  const format = typeof s.output_audio_format === 'string' ? s.output_audio_format : s.audio?.output?.format?.type;
  if (typeof format !== 'string') return undefined;
  return /^g711|^audio\/pcm[au]$/.test(format) ? G711_BYTES_PER_OUTPUT_TOKEN : PCM16_BYTES_PER_OUTPUT_TOKEN;
}

export const DEFAULT_AUDIO_BYTES_PER_TOKEN = PCM16_BYTES_PER_OUTPUT_TOKEN;
