import fc from 'fast-check';
import { anyJson } from './schema-arbitrary.js';

/**
 * fast-check arbitraries of relay wire bodies (requests, replies, stream events of each format),
 * shaped closely enough to reach deep into the converters of `relay/formats`, with arbitrary JSON
 * in every leaf and arbitrary objects mixed in. Issue 22 item 5.
 */
type Json = ReturnType<typeof JSON.parse>;
type Obj = Record<string, Json>;

const text = fc.oneof(fc.string({ maxLength: 16 }), fc.constantFrom('', 'hello', '{"a":1}', '{', 'null', '[]'));
const int = fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, 1.5, Number.MAX_SAFE_INTEGER));
const num = fc.oneof(int, fc.double({ noNaN: true }));
/** Mostly a value of the given shape, sometimes anything at all. */
const or = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<Json> => fc.oneof({ arbitrary: a as fc.Arbitrary<Json>, weight: 5 }, { arbitrary: anyJson, weight: 1 });
const rec = (model: Record<string, fc.Arbitrary<Json>>): fc.Arbitrary<Obj> => fc.record(model, { requiredKeys: [] }) as fc.Arbitrary<Obj>;
const list = <T>(a: fc.Arbitrary<T>, max = 3) => fc.array(a, { maxLength: max });

const imageUrl = fc.constantFrom('data:image/png;base64,iVBORw0KGgo=', 'data:application/pdf;base64,JVBERi0=', 'data:', 'data:image/png;base64,', 'https://example.com/a.png', 'x');
const openAIPart = fc.oneof(
  rec({ type: fc.constant('text'), text }),
  rec({ type: fc.constant('image_url'), image_url: or(rec({ url: imageUrl, detail: text })) }),
  rec({ type: fc.constantFrom('input_audio', 'file', 'input_text', 'input_image', 'refusal'), text, input_audio: or(rec({ data: text, format: text })), file: or(rec({ file_data: imageUrl, filename: text })) }),
  anyJson,
);
const toolCall = rec({ id: text, type: or(fc.constant('function')), index: int, function: or(rec({ name: text, arguments: or(fc.constantFrom('{}', '{"a":1}', '[1]', 'oops', '')) })) });
const role = fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool', 'function', 'model', 'x');
const openAIMessage = rec({ role: or(role), content: fc.oneof(text, list(openAIPart), fc.constant(null)), tool_calls: or(list(toolCall)), tool_call_id: text, name: text, reasoning_content: text });
const openAITool = rec({ type: or(fc.constantFrom('function', 'web_search')), function: or(rec({ name: text, description: text, parameters: anyJson, strict: fc.boolean() })) });

export const openAIChatBody = rec({
  model: text,
  messages: or(list(openAIMessage, 4)),
  tools: or(list(openAITool)),
  tool_choice: or(fc.oneof(fc.constantFrom('auto', 'none', 'required'), rec({ type: fc.constant('function'), function: rec({ name: text }) }))),
  temperature: num,
  top_p: num,
  max_tokens: int,
  max_completion_tokens: int,
  stream: fc.boolean(),
  stream_options: or(rec({ include_usage: fc.boolean() })),
  stop: or(fc.oneof(text, list(text))),
  n: int,
  response_format: or(rec({ type: fc.constantFrom('text', 'json_object', 'json_schema'), json_schema: or(rec({ name: text, schema: anyJson })) })),
  frequency_penalty: num,
  presence_penalty: num,
  logprobs: fc.boolean(),
  logit_bias: anyJson,
  seed: int,
  user: text,
  reasoning_effort: or(fc.constantFrom('low', 'medium', 'high')),
  prompt: or(fc.oneof(text, list(text))),
});

const anthropicBlock = fc.oneof(
  rec({ type: fc.constant('text'), text }),
  rec({ type: fc.constant('image'), source: or(rec({ type: fc.constantFrom('base64', 'url'), media_type: text, data: text, url: imageUrl })) }),
  rec({ type: fc.constant('tool_use'), id: text, name: text, input: anyJson }),
  rec({ type: fc.constant('tool_result'), tool_use_id: text, content: fc.oneof(text, list(rec({ type: fc.constant('text'), text }))), is_error: fc.boolean() }),
  rec({ type: fc.constantFrom('thinking', 'redacted_thinking', 'document'), thinking: text, signature: text, data: text, source: anyJson }),
  anyJson,
);
export const anthropicBody = rec({
  model: text,
  system: or(fc.oneof(text, list(anthropicBlock))),
  messages: or(list(rec({ role: or(fc.constantFrom('user', 'assistant')), content: fc.oneof(text, list(anthropicBlock)) }), 4)),
  max_tokens: int,
  temperature: num,
  top_p: num,
  top_k: int,
  stop_sequences: or(list(text)),
  stream: fc.boolean(),
  tools: or(list(rec({ name: text, description: text, input_schema: anyJson, type: text }))),
  tool_choice: or(rec({ type: fc.constantFrom('auto', 'any', 'tool', 'none'), name: text })),
  thinking: or(rec({ type: fc.constantFrom('enabled', 'disabled'), budget_tokens: int })),
  metadata: anyJson,
});

const geminiPart = fc.oneof(
  rec({ text }),
  rec({ inlineData: or(rec({ mimeType: text, data: text })), inline_data: or(rec({ mime_type: text, data: text })) }),
  rec({ functionCall: or(rec({ name: text, args: anyJson })) }),
  rec({ functionResponse: or(rec({ name: text, response: anyJson })) }),
  rec({ fileData: or(rec({ mimeType: text, fileUri: imageUrl })), thought: fc.boolean() }),
  anyJson,
);
const geminiContent = rec({ role: or(fc.constantFrom('user', 'model', 'function')), parts: or(list(geminiPart)) });
export const geminiBody = rec({
  contents: or(list(geminiContent, 4)),
  systemInstruction: or(geminiContent),
  system_instruction: or(geminiContent),
  generationConfig: or(rec({ maxOutputTokens: int, temperature: num, topP: num, topK: int, stopSequences: or(list(text)), responseMimeType: text, responseSchema: anyJson, candidateCount: int, thinkingConfig: anyJson })),
  tools: or(list(rec({ functionDeclarations: or(list(rec({ name: text, description: text, parameters: anyJson }))), googleSearch: anyJson }))),
  toolConfig: anyJson,
  safetySettings: or(list(rec({ category: text, threshold: text }))),
});

const responsesItem = fc.oneof(
  rec({ role: or(role), content: fc.oneof(text, list(openAIPart)), type: or(fc.constant('message')) }),
  rec({ type: fc.constantFrom('function_call', 'function_call_output', 'reasoning', 'item_reference'), call_id: text, name: text, arguments: text, output: or(text), id: text, summary: anyJson }),
  anyJson,
);
export const responsesBody = rec({
  model: text,
  input: or(fc.oneof(text, list(responsesItem, 4))),
  instructions: or(text),
  tools: or(list(rec({ type: or(fc.constantFrom('function', 'web_search_preview')), name: text, parameters: anyJson, description: text }))),
  tool_choice: anyJson,
  max_output_tokens: int,
  temperature: num,
  stream: fc.boolean(),
  text: or(rec({ format: or(rec({ type: fc.constantFrom('text', 'json_object', 'json_schema'), schema: anyJson, name: text })) })),
  reasoning: or(rec({ effort: text })),
  previous_response_id: text,
});

export const embeddingsBody = rec({
  model: text,
  input: or(fc.oneof(text, list(text), list(int, 6), list(list(int)))),
  encoding_format: or(fc.constantFrom('float', 'base64', 'x')),
  dimensions: int,
  // Gemini's batch and single embedding requests.
  requests: or(list(rec({ model: text, content: or(geminiContent), taskType: text, outputDimensionality: int }))),
  content: or(geminiContent),
  taskType: text,
  outputDimensionality: int,
});

const usageOpenAI = rec({ prompt_tokens: int, completion_tokens: int, total_tokens: int, prompt_tokens_details: or(rec({ cached_tokens: int, audio_tokens: int })), completion_tokens_details: or(rec({ reasoning_tokens: int })) });
const usageAnthropic = rec({ input_tokens: int, output_tokens: int, cache_read_input_tokens: int, cache_creation_input_tokens: int });
const usageGemini = rec({ promptTokenCount: int, candidatesTokenCount: int, totalTokenCount: int, thoughtsTokenCount: int, cachedContentTokenCount: int });
const finish = fc.constantFrom('stop', 'length', 'tool_calls', 'content_filter', 'end_turn', 'max_tokens', 'tool_use', 'STOP', 'MAX_TOKENS', 'SAFETY', 'COMPLETE', 'x', null);

/** Upstream replies of every text format and embeddings, one arbitrary for all (converters ignore what is not theirs). */
export const upstreamReply = fc.oneof(
  rec({ id: text, object: text, model: text, choices: or(list(rec({ index: int, message: or(openAIMessage), text, finish_reason: finish, logprobs: anyJson }))), usage: or(usageOpenAI), data: or(list(rec({ embedding: or(fc.oneof(list(num, 4), text)), index: int }))) }),
  rec({ id: text, type: or(fc.constant('message')), role: text, model: text, content: or(list(anthropicBlock)), stop_reason: finish, stop_sequence: text, usage: or(usageAnthropic) }),
  rec({ candidates: or(list(rec({ content: or(geminiContent), finishReason: finish, index: int, safetyRatings: anyJson }))), usageMetadata: or(usageGemini), promptFeedback: anyJson, embeddings: or(list(rec({ values: or(list(num, 4)) }))), embedding: or(rec({ values: or(list(num, 4)) })) }),
  rec({ id: text, object: or(fc.constant('response')), status: text, output: or(list(responsesItem)), output_text: text, usage: or(rec({ input_tokens: int, output_tokens: int, total_tokens: int, input_tokens_details: anyJson, output_tokens_details: anyJson })), error: anyJson }),
  rec({ id: text, message: or(rec({ role: text, content: or(list(rec({ type: text, text }))), tool_calls: or(list(toolCall)) })), finish_reason: finish, usage: or(rec({ tokens: or(rec({ input_tokens: int, output_tokens: int })), billed_units: anyJson })), embeddings: anyJson, embeddings_by_type: anyJson }),
  rec({ error: or(rec({ message: text, type: text, code: text, status: text })), type: text }),
  fc.object({ maxDepth: 2, maxKeys: 5 }),
);

/** One upstream stream event of any text format (OpenAI chunks, Anthropic and Responses events, Gemini and Cohere chunks). */
export const upstreamEvent = fc.record({
  event: fc.oneof(fc.constant(undefined), fc.constantFrom('message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'ping', 'error', 'response.completed', 'result', 'x')),
  data: fc.oneof(
    { weight: 6, arbitrary: fc.oneof(
      upstreamReply,
      rec({ id: text, object: text, choices: or(list(rec({ index: int, delta: or(rec({ role: text, content: or(text), reasoning_content: text, tool_calls: or(list(toolCall)) })), finish_reason: finish }))), usage: or(usageOpenAI) }),
      rec({ type: or(fc.constantFrom('message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop', 'error')), index: int, message: anyJson, content_block: or(anthropicBlock), delta: or(rec({ type: fc.constantFrom('text_delta', 'input_json_delta', 'thinking_delta', 'signature_delta'), text, partial_json: text, thinking: text, stop_reason: finish })), usage: or(usageAnthropic), error: anyJson }),
      rec({ type: or(fc.constantFrom('response.created', 'response.output_text.delta', 'response.function_call_arguments.delta', 'response.output_item.added', 'response.output_item.done', 'response.completed', 'response.failed', 'error')), delta: text, item: or(responsesItem), output_index: int, item_id: text, response: anyJson }),
      rec({ type: or(fc.constantFrom('message-start', 'content-start', 'content-delta', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'message-end')), index: int, delta: anyJson }),
    ).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.constantFrom('[DONE]', '', '{', 'null', '[]', '"x"') },
    { weight: 1, arbitrary: fc.string({ maxLength: 20 }) },
  ),
});
