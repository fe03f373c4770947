import type Anthropic from '@anthropic-ai/sdk';
import { Type, type Content, type FunctionDeclaration } from '@google/genai';
import {
  FAKE_PNG,
  countFakeTokens,
  expectedChatUsage,
  expectedGeminiUsage,
  expectedMessagesUsage,
  type FakeAnthropic,
  type FakeGemini,
  type FakeOpenAI,
} from '@modelgate/testkit';
import type OpenAI from 'openai';
import { anthropicClient, genaiClient, type RelayHarness, type TestCaller } from './relay-fixtures.js';

/**
 * The SDK matrix's two axes (relay.sdk-matrix.test.ts): each ingress drives one official SDK
 * against ModelGate and reads its reply back into one shape; each upstream reads what its fake
 * received and the usage that fake reports for it (its deterministic token rules).
 */

export const PROMPT = 'Hello there friend';
export const WEATHER_Q = 'what is the weather in Paris?';
export const IMAGE_Q = 'what is this?';
export const TOOL_RESULT = 'sunny';
export const PNG_B64 = FAKE_PNG.toString('base64');
export const PNG_URL = `data:image/png;base64,${PNG_B64}`;
const MAX = 64;

/** A caller and the server it calls. */
export type MatrixCaller = TestCaller & Pick<RelayHarness, 'server'>;

export interface Said {
  text: string;
  usage: { prompt: number; completion: number };
}
export interface ToolCall {
  id: string;
  name: string;
  args: unknown;
}
export interface Ingress {
  name: string;
  text(c: MatrixCaller, model: string): Promise<Said>;
  stream(c: MatrixCaller, model: string): Promise<Said>;
  /** Streams a question that makes the model call `get_weather`. */
  callTool(c: MatrixCaller, model: string): Promise<{ call: ToolCall; usage: Said['usage'] }>;
  /** Sends the tool's result back (non-stream) and reads the reply. */
  answerTool(c: MatrixCaller, model: string, call: ToolCall): Promise<Said>;
  image(c: MatrixCaller, model: string): Promise<Said>;
}

const WEATHER_SCHEMA = { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } as const;

// ---- OpenAI chat (`openai` SDK, /v1/chat/completions) ----

const chatTools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { ...WEATHER_SCHEMA } } }];
const chatUsage = (u: OpenAI.CompletionUsage | null | undefined) => ({ prompt: u?.prompt_tokens ?? -1, completion: u?.completion_tokens ?? -1 });

const openaiChat: Ingress = {
  name: 'OpenAI chat',
  async text(c, model) {
    const r = await c.client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }] });
    return { text: r.choices[0]!.message.content ?? '', usage: chatUsage(r.usage) };
  },
  async stream(c, model) {
    let text = '';
    let usage;
    for await (const ch of await c.client.chat.completions.create({ model, messages: [{ role: 'user', content: PROMPT }], stream: true, stream_options: { include_usage: true } })) {
      text += ch.choices[0]?.delta.content ?? '';
      if (ch.usage) usage = ch.usage;
    }
    return { text, usage: chatUsage(usage) };
  },
  async callTool(c, model) {
    const calls: Array<{ id: string; name: string; args: string }> = [];
    let usage;
    const stream = await c.client.chat.completions.create({ model, messages: [{ role: 'user', content: WEATHER_Q }], tools: chatTools, stream: true, stream_options: { include_usage: true } });
    for await (const ch of stream) {
      for (const d of ch.choices[0]?.delta.tool_calls ?? []) {
        const at = (calls[d.index] ??= { id: '', name: '', args: '' });
        at.id += d.id ?? '';
        at.name += d.function?.name ?? '';
        at.args += d.function?.arguments ?? '';
      }
      if (ch.usage) usage = ch.usage;
    }
    if (calls.length !== 1) throw new Error(`expected one tool call, got ${JSON.stringify(calls)}`);
    const call = calls[0]!;
    return { call: { id: call.id, name: call.name, args: JSON.parse(call.args) as unknown }, usage: chatUsage(usage) };
  },
  async answerTool(c, model, call) {
    const r = await c.client.chat.completions.create({
      model,
      tools: chatTools,
      messages: [
        { role: 'user', content: WEATHER_Q },
        { role: 'assistant', content: null, tool_calls: [{ id: call.id, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.args) } }] },
        { role: 'tool', tool_call_id: call.id, content: TOOL_RESULT },
      ],
    });
    return { text: r.choices[0]!.message.content ?? '', usage: chatUsage(r.usage) };
  },
  async image(c, model) {
    const r = await c.client.chat.completions.create({
      model,
      messages: [{ role: 'user', content: [{ type: 'text', text: IMAGE_Q }, { type: 'image_url', image_url: { url: PNG_URL } }] }],
    });
    return { text: r.choices[0]!.message.content ?? '', usage: chatUsage(r.usage) };
  },
};

// ---- Anthropic Messages (`@anthropic-ai/sdk`, /v1/messages) ----

const claudeTools: Anthropic.Tool[] = [{ name: 'get_weather', description: 'Weather of a city', input_schema: { ...WEATHER_SCHEMA, required: ['location'] } }];
const claudeUsage = (u: Anthropic.Usage) => ({ prompt: u.input_tokens + (u.cache_read_input_tokens ?? 0) + (u.cache_creation_input_tokens ?? 0), completion: u.output_tokens });
const claudeText = (m: Anthropic.Message) => m.content.map((b) => (b.type === 'text' ? b.text : '')).join('');

const anthropicMessages: Ingress = {
  name: 'Anthropic messages',
  async text(c, model) {
    const m = await anthropicClient(c, c).messages.create({ model, max_tokens: MAX, messages: [{ role: 'user', content: PROMPT }] });
    return { text: claudeText(m), usage: claudeUsage(m.usage) };
  },
  async stream(c, model) {
    const m = await anthropicClient(c, c).messages.stream({ model, max_tokens: MAX, messages: [{ role: 'user', content: PROMPT }] }).finalMessage();
    return { text: claudeText(m), usage: claudeUsage(m.usage) };
  },
  async callTool(c, model) {
    const m = await anthropicClient(c, c).messages.stream({ model, max_tokens: MAX, tools: claudeTools, messages: [{ role: 'user', content: WEATHER_Q }] }).finalMessage();
    const uses = m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
    if (uses.length !== 1 || m.stop_reason !== 'tool_use') throw new Error(`expected one tool_use, got ${JSON.stringify(m.content)} (${m.stop_reason})`);
    return { call: { id: uses[0]!.id, name: uses[0]!.name, args: uses[0]!.input }, usage: claudeUsage(m.usage) };
  },
  async answerTool(c, model, call) {
    const m = await anthropicClient(c, c).messages.create({
      model,
      max_tokens: MAX,
      tools: claudeTools,
      messages: [
        { role: 'user', content: WEATHER_Q },
        { role: 'assistant', content: [{ type: 'tool_use', id: call.id, name: call.name, input: call.args }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: TOOL_RESULT }] },
      ],
    });
    return { text: claudeText(m), usage: claudeUsage(m.usage) };
  },
  async image(c, model) {
    const m = await anthropicClient(c, c).messages.create({
      model,
      max_tokens: MAX,
      messages: [{ role: 'user', content: [{ type: 'text', text: IMAGE_Q }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_B64 } }] }],
    });
    return { text: claudeText(m), usage: claudeUsage(m.usage) };
  },
};

// ---- Gemini (`@google/genai`, /v1beta/models/{model}:…) ----

const weatherDecl: FunctionDeclaration = { name: 'get_weather', description: 'Weather of a city', parameters: { type: Type.OBJECT, properties: { location: { type: Type.STRING } }, required: ['location'] } };
const geminiUsage = (u: { promptTokenCount?: number; candidatesTokenCount?: number } | undefined) => ({ prompt: u?.promptTokenCount ?? -1, completion: u?.candidatesTokenCount ?? -1 });
const ask = (text: string): Content => ({ role: 'user', parts: [{ text }] });

const gemini: Ingress = {
  name: 'Gemini',
  async text(c, model) {
    const r = await genaiClient(c, c).models.generateContent({ model, contents: [ask(PROMPT)] });
    return { text: r.text ?? '', usage: geminiUsage(r.usageMetadata) };
  },
  async stream(c, model) {
    let text = '';
    let usage;
    for await (const ch of await genaiClient(c, c).models.generateContentStream({ model, contents: [ask(PROMPT)] })) {
      text += ch.text ?? '';
      if (ch.usageMetadata) usage = ch.usageMetadata;
    }
    return { text, usage: geminiUsage(usage) };
  },
  async callTool(c, model) {
    const calls = [];
    let usage;
    const stream = await genaiClient(c, c).models.generateContentStream({ model, contents: [ask(WEATHER_Q)], config: { tools: [{ functionDeclarations: [weatherDecl] }] } });
    for await (const ch of stream) {
      calls.push(...(ch.functionCalls ?? []));
      if (ch.usageMetadata) usage = ch.usageMetadata;
    }
    if (calls.length !== 1) throw new Error(`expected one function call, got ${JSON.stringify(calls)}`);
    return { call: { id: calls[0]!.id ?? '', name: calls[0]!.name ?? '', args: calls[0]!.args }, usage: geminiUsage(usage) };
  },
  async answerTool(c, model, call) {
    const id = call.id || undefined;
    const r = await genaiClient(c, c).models.generateContent({
      model,
      config: { tools: [{ functionDeclarations: [weatherDecl] }] },
      contents: [
        ask(WEATHER_Q),
        { role: 'model', parts: [{ functionCall: { id, name: call.name, args: call.args as Record<string, unknown> } }] },
        { role: 'user', parts: [{ functionResponse: { id, name: call.name, response: { output: TOOL_RESULT } } }] },
      ],
    });
    return { text: r.text ?? '', usage: geminiUsage(r.usageMetadata) };
  },
  async image(c, model) {
    const r = await genaiClient(c, c).models.generateContent({ model, contents: [{ role: 'user', parts: [{ text: IMAGE_Q }, { inlineData: { mimeType: 'image/png', data: PNG_B64 } }] }] });
    return { text: r.text ?? '', usage: geminiUsage(r.usageMetadata) };
  },
};

// ---- OpenAI Responses (`openai` SDK's `client.responses`, /v1/responses) ----

const respTools: OpenAI.Responses.FunctionTool[] = [{ type: 'function', name: 'get_weather', description: 'Weather of a city', parameters: { ...WEATHER_SCHEMA }, strict: false }];
const respUsage = (u: OpenAI.Responses.ResponseUsage | undefined) => ({ prompt: u?.input_tokens ?? -1, completion: u?.output_tokens ?? -1 });

const responses: Ingress = {
  name: 'Responses',
  async text(c, model) {
    const r = await c.client.responses.create({ model, input: PROMPT });
    return { text: r.output_text, usage: respUsage(r.usage) };
  },
  async stream(c, model) {
    const r = await c.client.responses.stream({ model, input: PROMPT }).finalResponse();
    return { text: r.output_text, usage: respUsage(r.usage) };
  },
  async callTool(c, model) {
    const r = await c.client.responses.stream({ model, input: WEATHER_Q, tools: respTools }).finalResponse();
    const calls = r.output.flatMap((o) => (o.type === 'function_call' ? [o] : []));
    if (calls.length !== 1) throw new Error(`expected one function_call, got ${JSON.stringify(r.output)}`);
    return { call: { id: calls[0]!.call_id, name: calls[0]!.name, args: JSON.parse(calls[0]!.arguments) as unknown }, usage: respUsage(r.usage) };
  },
  async answerTool(c, model, call) {
    const r = await c.client.responses.create({
      model,
      tools: respTools,
      input: [
        { role: 'user', content: WEATHER_Q },
        { type: 'function_call', call_id: call.id, name: call.name, arguments: JSON.stringify(call.args) },
        { type: 'function_call_output', call_id: call.id, output: TOOL_RESULT },
      ],
    });
    return { text: r.output_text, usage: respUsage(r.usage) };
  },
  async image(c, model) {
    const r = await c.client.responses.create({
      model,
      input: [{ role: 'user', content: [{ type: 'input_text', text: IMAGE_Q }, { type: 'input_image', image_url: PNG_URL, detail: 'auto' }] }],
    });
    return { text: r.output_text, usage: respUsage(r.usage) };
  },
};

export const INGRESSES: readonly Ingress[] = [openaiChat, anthropicMessages, gemini, responses];

// ---- Upstreams: what the fake received, and the usage it reported for it ----

export interface Upstream {
  name: string;
  model: string;
  /** The fake's text reply (5 words). */
  reply: string;
  /** Prompt tokens the fake counts for the inline PNG. */
  imageTokens: number;
  /** The last request's body. */
  last(): Record<string, unknown>;
  /** The usage the fake reported for its last request. */
  lastUsage(): Said['usage'];
  /** The image of the last request, as the upstream's format carries it. */
  lastImage(): { mime: string; data: string } | undefined;
  /** The tool result of the last request, as text. */
  lastToolResult(): string | undefined;
}

const isRec = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const dataUrl = (url: unknown) => {
  const m = typeof url === 'string' ? /^data:([^;]+);base64,(.*)$/su.exec(url) : null;
  return m ? { mime: m[1]!, data: m[2]! } : undefined;
};

/** Input tokens of the Responses fake: words of `instructions` and of every input text, call arguments and outputs. */
function responsesInputTokens(body: Record<string, unknown>): number {
  const item = (i: unknown): string => {
    if (typeof i === 'string') return i;
    if (!isRec(i)) return '';
    if (i.type === 'function_call') return String(i.arguments ?? '');
    if (i.type === 'function_call_output') return typeof i.output === 'string' ? i.output : '';
    if (typeof i.content === 'string') return i.content;
    return list(i.content).map((p) => (isRec(p) && typeof p.text === 'string' ? p.text : '')).join(' ');
  };
  const input = typeof body.input === 'string' ? body.input : list(body.input).map(item).join(' ');
  return countFakeTokens(`${typeof body.instructions === 'string' ? body.instructions : ''} ${input}`);
}

export function openaiUpstream(fake: FakeOpenAI, model: string): Upstream {
  const req = () => fake.requests.at(-1)!;
  const last = () => req().body as Record<string, unknown>;
  return {
    name: 'OpenAI',
    model,
    reply: 'Hello from the fake OpenAI',
    imageTokens: 0,
    last,
    lastUsage() {
      const body = last();
      if (req().path === '/v1/responses') {
        // A function call and a text reply both count chunkCount (5) output tokens.
        const max = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : 5;
        return { prompt: responsesInputTokens(body), completion: Math.min(5, max) };
      }
      const u = expectedChatUsage(body);
      return { prompt: u.prompt_tokens, completion: u.completion_tokens };
    },
    lastImage() {
      const body = last();
      for (const m of [...list(body.messages), ...list(body.input)]) {
        for (const p of isRec(m) ? list(m.content) : []) {
          if (isRec(p) && p.type === 'image_url' && isRec(p.image_url)) return dataUrl(p.image_url.url);
          if (isRec(p) && p.type === 'input_image') return dataUrl(p.image_url);
        }
      }
      return undefined;
    },
    lastToolResult() {
      const body = last();
      const tool = list(body.messages).find((m) => isRec(m) && m.role === 'tool');
      if (isRec(tool)) return typeof tool.content === 'string' ? tool.content : JSON.stringify(tool.content);
      const out = list(body.input).find((i) => isRec(i) && i.type === 'function_call_output');
      return isRec(out) ? String(out.output) : undefined;
    },
  };
}

export function anthropicUpstream(fake: FakeAnthropic, model: string): Upstream {
  const last = () => fake.requests.at(-1)!.body as Record<string, unknown>;
  const lastUserBlocks = () => list((list(last().messages).at(-1) as Record<string, unknown> | undefined)?.content);
  return {
    name: 'Anthropic',
    model,
    reply: 'Hello from the fake Claude',
    imageTokens: 0,
    last,
    lastUsage() {
      const u = expectedMessagesUsage(last());
      return { prompt: u.input_tokens + u.cache_read_input_tokens + u.cache_creation_input_tokens, completion: u.output_tokens };
    },
    lastImage() {
      const img = lastUserBlocks().find((b) => isRec(b) && b.type === 'image');
      const src = isRec(img) && isRec(img.source) ? img.source : undefined;
      return src && src.type === 'base64' ? { mime: String(src.media_type), data: String(src.data) } : undefined;
    },
    lastToolResult() {
      const r = lastUserBlocks().find((b) => isRec(b) && b.type === 'tool_result');
      if (!isRec(r)) return undefined;
      return typeof r.content === 'string' ? r.content : list(r.content).map((b) => (isRec(b) ? String(b.text ?? '') : '')).join('');
    },
  };
}

export function geminiUpstream(fake: FakeGemini, model: string): Upstream {
  const last = () => fake.requests.at(-1)!.body as Record<string, unknown>;
  const lastParts = () => list((list(last().contents).at(-1) as Record<string, unknown> | undefined)?.parts);
  return {
    name: 'Gemini',
    model,
    reply: 'Hello from the fake Gemini',
    imageTokens: 258,
    last,
    lastUsage() {
      const u = expectedGeminiUsage(last());
      return { prompt: u.promptTokenCount, completion: u.candidatesTokenCount };
    },
    lastImage() {
      const p = lastParts().find((x) => isRec(x) && isRec(x.inlineData ?? x.inline_data));
      const d = isRec(p) ? ((p.inlineData ?? p.inline_data) as Record<string, unknown>) : undefined;
      return d ? { mime: String(d.mimeType ?? d.mime_type), data: String(d.data) } : undefined;
    },
    lastToolResult() {
      const p = lastParts().find((x) => isRec(x) && isRec(x.functionResponse ?? x.function_response));
      return isRec(p) ? JSON.stringify((p.functionResponse ?? p.function_response) as Record<string, unknown>) : undefined;
    },
  };
}

