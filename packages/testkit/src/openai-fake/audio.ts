import { invalidRequest, missingParam, type RequestContext } from './context.js';
import { sendJson, sendPayload } from './respond.js';
import { isRecord } from './util.js';

const ID3_HEADER = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
/** Bytes of fake audio per input character (code point), after the 10-byte ID3 header. */
export const SPEECH_BYTES_PER_CHAR = 16;

const SPEECH_TYPES: Record<string, string> = {
  mp3: 'audio/mpeg',
  opus: 'audio/ogg',
  aac: 'audio/aac',
  flac: 'audio/flac',
  wav: 'audio/wav',
  pcm: 'audio/pcm',
};

/** Length of the fake speech for `input`: 10 + 16 × characters, so tests can assert it. */
export function fakeSpeechLength(input: string): number {
  return ID3_HEADER.length + SPEECH_BYTES_PER_CHAR * [...input].length;
}

export async function handleSpeech(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body) || typeof body.model !== 'string') throw missingParam('model');
  if (typeof body.input !== 'string') throw missingParam('input');
  if (typeof body.voice !== 'string') throw missingParam('voice');
  const format = typeof body.response_format === 'string' ? body.response_format : 'mp3';
  const contentType = SPEECH_TYPES[format];
  if (!contentType) throw invalidRequest(`Invalid response_format '${format}'.`, 'response_format', 'invalid_value');
  const audio = Buffer.alloc(fakeSpeechLength(body.input), 0x55);
  ID3_HEADER.copy(audio);
  await sendPayload(ctx, contentType, audio);
}

/** Transcript text for an upload of `size` bytes: depends on the bytes received, so uploads are checked end to end. */
export function fakeTranscript(size: number, task: 'transcribe' | 'translate'): string {
  return task === 'transcribe' ? `Fake transcription of ${size} bytes.` : `Fake translation of ${size} bytes.`;
}

/** Fake audio length: 1 000 bytes per second of audio. */
function durationOf(size: number): number {
  return Math.round((size / 1000) * 100) / 100;
}

function timestamp(seconds: number, separator: ',' | '.'): string {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2): string => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)}${separator}${pad(ms % 1000, 3)}`;
}

export function handleTranscriptions(ctx: RequestContext): Promise<void> {
  return transcribe(ctx, 'transcribe');
}

export function handleTranslations(ctx: RequestContext): Promise<void> {
  return transcribe(ctx, 'translate');
}

async function transcribe(ctx: RequestContext, task: 'transcribe' | 'translate'): Promise<void> {
  const form = ctx.multipart;
  if (!form) throw invalidRequest('Expected a multipart/form-data request body.', null, null);
  const file = form.files.find((f) => f.field === 'file');
  if (!file) throw missingParam('file');
  if (!form.fields.model) throw missingParam('model');
  const text = fakeTranscript(file.data.length, task);
  const duration = durationOf(file.data.length);
  const usage = { type: 'duration', seconds: Math.ceil(duration) };
  const format = form.fields.response_format ?? 'json';
  const cue = (sep: ',' | '.'): string => `${timestamp(0, sep)} --> ${timestamp(duration, sep)}`;
  switch (format) {
    case 'json':
      await sendJson(ctx, ctx.fault?.omitUsage ? { text } : { text, usage });
      return;
    case 'text':
      await sendPayload(ctx, 'text/plain; charset=utf-8', `${text}\n`);
      return;
    case 'srt':
      await sendPayload(ctx, 'text/plain; charset=utf-8', `1\n${cue(',')}\n${text}\n\n`);
      return;
    case 'vtt':
      await sendPayload(ctx, 'text/plain; charset=utf-8', `WEBVTT\n\n${cue('.')}\n${text}\n\n`);
      return;
    case 'verbose_json': {
      const words = text.split(' ');
      const wordsWanted = form.fields['timestamp_granularities[]'] === 'word';
      await sendJson(ctx, {
        task,
        language: task === 'translate' ? 'english' : (form.fields.language ?? 'english'),
        duration,
        text,
        segments: [
          { id: 0, seek: 0, start: 0, end: duration, text, tokens: words.map((_, i) => 1000 + i), temperature: 0, avg_logprob: -0.1, compression_ratio: 1, no_speech_prob: 0 },
        ],
        ...(wordsWanted ? { words: words.map((word, i) => ({ word, start: (duration * i) / words.length, end: (duration * (i + 1)) / words.length })) } : {}),
        ...(ctx.fault?.omitUsage ? {} : { usage }),
      });
      return;
    }
    default:
      throw invalidRequest(`Invalid response_format '${format}'.`, 'response_format', 'invalid_value');
  }
}
