import { describe, expect, it } from 'vitest';
import { audioBytesPerToken, DEFAULT_AUDIO_BYTES_PER_TOKEN, ResponseTally } from './realtime-tally.js';

const MODEL = 'gpt-4o-realtime-preview';

function add(tally: ResponseTally, event: Record<string, unknown>, text = JSON.stringify(event)): void {
  const frame = Buffer.from(text);
  tally.add(frame.subarray(0, 200).toString('utf8'), frame);
}

describe('ResponseTally (the count of a response that ended without response.done)', () => {
  it('counts text, transcript and tool-argument deltas with the model encoder, and pcm16 audio at 1 token per 50 ms', async () => {
    const tally = new ResponseTally(DEFAULT_AUDIO_BYTES_PER_TOKEN);
    expect(tally.produced).toBe(false);
    add(tally, { type: 'response.text.delta', delta: 'Hello' });
    add(tally, { type: 'response.audio_transcript.delta', delta: ' from' });
    add(tally, { type: 'response.function_call_arguments.delta', delta: ' the' });
    // 1 s of audio in three deltas, padded base64 included: 48 000 bytes = 20 tokens.
    for (const n of [16_000, 16_001, 15_999]) add(tally, { type: 'response.audio.delta', response_id: 'r', delta: Buffer.alloc(n, 7).toString('base64') });
    // Not output: ignored.
    add(tally, { type: 'response.output_item.added', item: { content: [{ text: 'many words here' }] } });
    expect(tally.produced).toBe(true);
    expect(await tally.usage(MODEL)).toMatchObject({ promptTokens: 0, completionTokens: 3 + 20, audioOutputTokens: 20 });
  });

  it('finds the audio where a serialiser put it (spaces around the colon, keys after it) without parsing the frame', async () => {
    const tally = new ResponseTally(DEFAULT_AUDIO_BYTES_PER_TOKEN);
    const audio = Buffer.alloc(2400, 1).toString('base64');
    add(tally, {}, `{"type": "response.audio.delta", "delta" : "${audio}", "item_id": "item_1"}`);
    add(tally, {}, `{"type":"response.audio.delta","delta":null}`);
    expect(await tally.usage(MODEL)).toMatchObject({ completionTokens: 1, audioOutputTokens: 1 });
  });

  it('an empty or malformed delta produces nothing', async () => {
    const tally = new ResponseTally(DEFAULT_AUDIO_BYTES_PER_TOKEN);
    add(tally, { type: 'response.text.delta', delta: '' });
    add(tally, {}, '{"type":"response.text.delta","delta":"unterminated');
    expect(tally.produced).toBe(false);
    expect(await tally.usage(MODEL)).toMatchObject({ completionTokens: 0, audioOutputTokens: 0 });
  });

  it('takes the output audio format from the session: G.711 is 400 bytes per token, pcm16 2 400', () => {
    expect(audioBytesPerToken({ output_audio_format: 'pcm16' })).toBe(2400);
    expect(audioBytesPerToken({ output_audio_format: 'g711_ulaw' })).toBe(400);
    expect(audioBytesPerToken({ output_audio_format: 'g711_alaw' })).toBe(400);
    expect(audioBytesPerToken({ audio: { output: { format: { type: 'audio/pcm', rate: 24000 } } } })).toBe(2400);
    expect(audioBytesPerToken({ audio: { output: { format: { type: 'audio/pcmu' } } } })).toBe(400);
    expect(audioBytesPerToken({ instructions: 'x' })).toBeUndefined();
    expect(audioBytesPerToken(null)).toBeUndefined();
  });
});
