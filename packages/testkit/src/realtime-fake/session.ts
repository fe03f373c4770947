import type { WebSocket } from 'ws';

/**
 * One Realtime API session (beta protocol, `OpenAI-Beta: realtime=v1`), as OpenAI documents its
 * events: `session.created` on connect; `session.update` → `session.updated`;
 * `conversation.item.create` → `conversation.item.created`; `input_audio_buffer.append`/`commit`;
 * `response.create` → `response.created`, output item and content part events, text (or audio and
 * audio-transcript) deltas, their `.done` events and `response.done` with `usage`.
 *
 * Token counts are deterministic so tests can compute a bill: a text token per whitespace-separated
 * word, an audio input token per 4 800 bytes of pcm16 (100 ms at 24 kHz), 5 audio output tokens per
 * reply word, each sent as 2 400 bytes of pcm16 (50 ms: OpenAI counts assistant audio at 1 token per
 * 50 ms, user audio at 1 per 100 ms). Every response reads the whole conversation; what an earlier
 * response already read is reported as cached (the prompt cache).
 */
export const REALTIME_AUDIO_BYTES_PER_TOKEN = 4800;
export const REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN = 2400;
export const REALTIME_AUDIO_TOKENS_PER_WORD = 5;
export const FAKE_REALTIME_REPLY = 'Hello from the fake realtime model';

export function realtimeTextTokens(text: string): number {
  return text.split(/\s+/u).filter(Boolean).length;
}

export interface RealtimeUsage {
  total_tokens: number;
  input_tokens: number;
  output_tokens: number;
  input_token_details: { cached_tokens: number; text_tokens: number; audio_tokens: number; cached_tokens_details: { text_tokens: number; audio_tokens: number } };
  output_token_details: { text_tokens: number; audio_tokens: number };
}

/** The usage the fake reports for a response: `context` is what the conversation held, `cached` what an earlier response read. */
export function realtimeUsage(context: { text: number; audio: number }, cached: { text: number; audio: number }, replyWords: number, audio: boolean): RealtimeUsage {
  const outAudio = audio ? replyWords * REALTIME_AUDIO_TOKENS_PER_WORD : 0;
  const input = context.text + context.audio;
  const output = replyWords + outAudio;
  return {
    total_tokens: input + output,
    input_tokens: input,
    output_tokens: output,
    input_token_details: {
      cached_tokens: cached.text + cached.audio,
      text_tokens: context.text,
      audio_tokens: context.audio,
      cached_tokens_details: { text_tokens: cached.text, audio_tokens: cached.audio },
    },
    output_token_details: { text_tokens: replyWords, audio_tokens: outAudio },
  };
}

export interface SessionOptions {
  model: string;
  reply: string;
  /** Close the socket (code 1011) after this many `response.created` events, before the response completes. */
  closeMidResponse?: number;
  /** The `n`th response stops after `afterWords` reply words until `resume()` (or `response.cancel`). */
  pauseMidResponse?: { n: number; afterWords: number };
}

type Json = Record<string, unknown>;

export class RealtimeSession {
  private seq = 0;
  private items: Array<{ id: string; text: number; audio: number }> = [];
  private readTokens = { text: 0, audio: 0 };
  private audioBuffer = 0;
  private responses = 0;
  private active: ActiveResponse | undefined;
  private config: Json;
  /** Client event types received, in order (tests assert what reached the upstream). */
  readonly received: string[] = [];

  constructor(
    private readonly ws: WebSocket,
    private readonly opts: SessionOptions,
  ) {
    this.config = {
      id: this.id('sess'),
      object: 'realtime.session',
      model: opts.model,
      modalities: ['text', 'audio'],
      instructions: '',
      voice: 'alloy',
      input_audio_format: 'pcm16',
      output_audio_format: 'pcm16',
      input_audio_transcription: null,
      turn_detection: { type: 'server_vad', threshold: 0.5, prefix_padding_ms: 300, silence_duration_ms: 200 },
      tools: [],
      tool_choice: 'auto',
      temperature: 0.8,
      max_response_output_tokens: 'inf',
    };
    this.send({ type: 'session.created', session: this.config });
  }

  private id(prefix: string): string {
    this.seq += 1;
    return `${prefix}_fake${String(this.seq).padStart(6, '0')}`;
  }

  private send(event: Json): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.send(JSON.stringify({ event_id: this.id('event'), ...event }));
  }

  error(type: string, code: string | null, message: string, param: string | null = null, eventId: string | null = null): void {
    this.send({ type: 'error', error: { type, code, message, param, event_id: eventId } });
  }

  handle(text: string): void {
    let event: Json;
    try {
      const v = JSON.parse(text) as unknown;
      if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
      event = v as Json;
    } catch {
      this.error('invalid_request_error', 'invalid_json', "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly.)");
      return;
    }
    const type = typeof event.type === 'string' ? event.type : '';
    const eventId = typeof event.event_id === 'string' ? event.event_id : null;
    this.received.push(type);
    switch (type) {
      case 'session.update':
        this.config = { ...this.config, ...((event.session as Json | undefined) ?? {}) };
        this.send({ type: 'session.updated', session: this.config });
        return;
      case 'conversation.item.create':
        this.createItem(event.item as Json | undefined, eventId);
        return;
      case 'input_audio_buffer.append': {
        if (typeof event.audio !== 'string') return this.error('invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'audio'.", 'audio', eventId);
        this.audioBuffer += Buffer.from(event.audio, 'base64').length;
        return;
      }
      case 'input_audio_buffer.commit': {
        if (this.audioBuffer === 0) return this.error('invalid_request_error', 'input_audio_buffer_commit_empty', 'Error committing input audio buffer: buffer too small.', null, eventId);
        const item = { id: this.id('item'), text: 0, audio: Math.ceil(this.audioBuffer / REALTIME_AUDIO_BYTES_PER_TOKEN) };
        this.audioBuffer = 0;
        const previous = this.items.at(-1)?.id ?? null;
        this.items.push(item);
        this.send({ type: 'input_audio_buffer.committed', previous_item_id: previous, item_id: item.id });
        this.send({ type: 'conversation.item.created', previous_item_id: previous, item: { id: item.id, object: 'realtime.item', type: 'message', status: 'completed', role: 'user', content: [{ type: 'input_audio', transcript: null }] } });
        return;
      }
      case 'response.create':
        this.respond((event.response as Json | undefined) ?? {}, eventId);
        return;
      case 'response.cancel':
        // Only a paused response is still in progress when the next client event is read.
        if (this.active) return this.active.cancel();
        return this.error('invalid_request_error', 'response_cancel_not_active', 'Cancellation failed: no active response found', null, eventId);
      default:
        this.error('invalid_request_error', 'invalid_value', `Invalid value: '${type}'. Supported values are: 'session.update', 'input_audio_buffer.append', 'input_audio_buffer.commit', 'conversation.item.create', 'response.create' and 'response.cancel'.`, 'type', eventId);
    }
  }

  private createItem(item: Json | undefined, eventId: string | null): void {
    if (!item || typeof item !== 'object') return this.error('invalid_request_error', 'missing_required_parameter', "Missing required parameter: 'item'.", 'item', eventId);
    const content = Array.isArray(item.content) ? (item.content as Json[]) : [];
    const text = content.map((c) => (typeof c.text === 'string' ? c.text : '')).join(' ');
    const stored = { id: typeof item.id === 'string' ? item.id : this.id('item'), text: realtimeTextTokens(text), audio: 0 };
    const previous = this.items.at(-1)?.id ?? null;
    this.items.push(stored);
    this.send({ type: 'conversation.item.created', previous_item_id: previous, item: { ...item, id: stored.id, object: 'realtime.item', status: 'completed' } });
  }

  /** A response cannot start while another is in progress (a paused one), as OpenAI refuses it. */
  private respond(options: Json, eventId: string | null): void {
    if (this.active) return this.error('invalid_request_error', 'conversation_already_has_active_response', 'Conversation already has an active response', null, eventId);
    this.responses += 1;
    const modalities = Array.isArray(options.modalities) ? options.modalities : (this.config.modalities as unknown[]);
    const audio = modalities.includes('audio');
    const responseId = this.id('resp');
    const itemId = this.id('item');
    const base = { object: 'realtime.response', id: responseId };
    const item = { id: itemId, object: 'realtime.item', type: 'message', status: 'in_progress', role: 'assistant', content: [] as Json[] };
    const at = { response_id: responseId, item_id: itemId, output_index: 0, content_index: 0 };
    const words = this.opts.reply.split(' ');
    const pause = this.opts.pauseMidResponse?.n === this.responses ? this.opts.pauseMidResponse.afterWords : undefined;
    const active: ActiveResponse = { steps: [], sent: 0, pauseAfter: pause, cancel: () => undefined };
    this.send({ type: 'response.created', response: { ...base, status: 'in_progress', status_details: null, output: [], usage: null } });
    this.send({ type: 'response.output_item.added', response_id: responseId, output_index: 0, item });
    this.send({ type: 'response.content_part.added', ...at, part: audio ? { type: 'audio', transcript: '' } : { type: 'text', text: '' } });
    words.forEach((w, i) =>
      active.steps.push(() => {
        const delta = i === 0 ? w : ` ${w}`;
        if (audio) {
          // Audio that lasts as long as the tokens it is billed as (REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN).
          this.send({ type: 'response.audio.delta', ...at, delta: Buffer.alloc(REALTIME_AUDIO_TOKENS_PER_WORD * REALTIME_AUDIO_OUTPUT_BYTES_PER_TOKEN, i).toString('base64') });
          this.send({ type: 'response.audio_transcript.delta', ...at, delta });
        } else this.send({ type: 'response.text.delta', ...at, delta });
        active.sent = i + 1;
        if (i === 0 && this.opts.closeMidResponse === this.responses) this.ws.close(1011, 'upstream failure');
      }),
    );
    /** Ends the response with the words sent so far: all of them (completed) or fewer (cancelled). */
    const finish = (status: 'completed' | 'cancelled') => {
      this.active = undefined;
      const reply = words.slice(0, active.sent).join(' ');
      const donePart = audio ? { type: 'audio', transcript: reply } : { type: 'text', text: reply };
      if (status === 'completed') {
        if (audio) {
          this.send({ type: 'response.audio.done', ...at });
          this.send({ type: 'response.audio_transcript.done', ...at, transcript: reply });
        } else this.send({ type: 'response.text.done', ...at, text: reply });
        this.send({ type: 'response.content_part.done', ...at, part: donePart });
      }
      const doneItem = { ...item, status: status === 'completed' ? 'completed' : 'incomplete', content: [donePart] };
      this.send({ type: 'response.output_item.done', response_id: responseId, output_index: 0, item: doneItem });
      const context = this.items.reduce((s, it) => ({ text: s.text + it.text, audio: s.audio + it.audio }), { text: 0, audio: 0 });
      const usage = realtimeUsage(context, this.readTokens, realtimeTextTokens(reply), audio);
      this.readTokens = context;
      // The reply (what was generated of it) joins the conversation: the next response reads it as input.
      this.items.push({ id: itemId, text: realtimeTextTokens(reply), audio: audio ? realtimeTextTokens(reply) * REALTIME_AUDIO_TOKENS_PER_WORD : 0 });
      const details = status === 'cancelled' ? { type: 'cancelled', reason: 'client_cancelled' } : null;
      this.send({ type: 'response.done', response: { ...base, status, status_details: details, output: [doneItem], usage } });
    };
    active.steps.push(() => finish('completed'));
    active.cancel = () => {
      active.steps.length = 0;
      finish('cancelled');
    };
    this.active = active;
    this.run();
  }

  /** Sends the active response's events until it ends, pauses or the socket closes. */
  private run(): void {
    const active = this.active;
    while (active && active.steps.length && this.ws.readyState === this.ws.OPEN) {
      if (active.pauseAfter !== undefined && active.sent === active.pauseAfter) return;
      active.steps.shift()!();
    }
    if (active && this.ws.readyState !== this.ws.OPEN) this.active = undefined;
  }

  /** Continues a paused response to its end. */
  resume(): void {
    if (!this.active) return;
    this.active.pauseAfter = undefined;
    this.run();
  }
}

interface ActiveResponse {
  /** What is left to send after the opening events: one step per reply word, then the closing events. */
  steps: Array<() => void>;
  /** Reply words sent so far. */
  sent: number;
  pauseAfter: number | undefined;
  cancel: () => void;
}

