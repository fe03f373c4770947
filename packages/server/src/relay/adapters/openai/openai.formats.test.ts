import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { openAIResponses } from '../../formats/openai-responses/spec.js';
import { assertAllConform, assertConforms, openapiAvailable, openapiSkipReason, type SchemaName } from '../../../test-support/openapi-contract.js';

/** OpenAI's documented bodies (fixtures/) satisfy OpenAI's own published OpenAPI schema. */
if (!openapiAvailable) console.warn(`openai.formats skipped: ${openapiSkipReason}`);

/** The component schema of each fixture, by the SDK type it is declared with. */
const SCHEMA_BY_TYPE: Record<string, SchemaName> = {
  "import('openai').OpenAI.ChatCompletionCreateParamsNonStreaming": 'CreateChatCompletionRequest',
  "import('openai').OpenAI.ChatCompletion": 'CreateChatCompletionResponse',
  "import('openai').OpenAI.ChatCompletionChunk": 'CreateChatCompletionStreamResponse',
  "import('openai').OpenAI.CreateEmbeddingResponse": 'CreateEmbeddingResponse',
  "{ error: import('openai').OpenAI.ErrorObject }": 'ErrorResponse',
  // The Responses types leave out the SDK-only `output_text` (see the fixtures' notes).
  "Omit<import('openai').OpenAI.Responses.Response, 'output_text'>": 'Response',
  "import('openai').OpenAI.Responses.ResponseStreamEvent extends infer E ? E extends { response: unknown } ? Omit<E, 'response'> & { response: Omit<import('openai').OpenAI.Responses.Response, 'output_text' | 'usage'> & { usage: import('openai').OpenAI.Responses.ResponseUsage | null } } : E : never": 'ResponseStreamEvent',
  "{ object: 'list'; data: Array<import('openai').OpenAI.Models.Model> }": 'ListModelsResponse',
};

describe.skipIf(!openapiAvailable)('OpenAI fixtures against the OpenAPI schema', () => {
  const names = providerFixtureNames('openai');
  it('has the minimum set: a request, a response, a stream and an error', () => {
    expect(new Set(names.map((n) => providerFixture('openai', n).kind))).toEqual(new Set(['request', 'response', 'stream', 'error']));
  });

  it.each(names)('%s conforms', (name) => {
    const fx = providerFixture('openai', name);
    const schema = SCHEMA_BY_TYPE[fx.type];
    expect(schema, `no schema mapped for ${fx.type}`).toBeDefined();
    if (fx.kind === 'stream') assertAllConform(schema!, fx.events ?? [], name);
    else assertConforms(schema!, fx.body, name);
  });
});

describe('the Responses reader on the documented Responses answer and stream', () => {
  const answer = providerFixture('openai', 'responses.response').body as Record<string, unknown>;
  const stream = providerFixture('openai', 'responses.stream');

  it('reads the answer’s usage and its text (message text, then the call’s name and arguments)', () => {
    expect(openAIResponses.usage(answer)).toMatchObject({ promptTokens: 64, completionTokens: 27, cachedTokens: 0, reasoningTokens: 0 });
    expect(openAIResponses.responseText(answer)).toBe('Let me check the weather in Paris.get_weather{"location":"Paris"}');
  });

  it('reads the stream’s deltas, its one tool call and the final usage of response.completed', () => {
    const reader = openAIResponses.reader();
    const facts = stream.events!.map((data, i) => reader.read({ event: stream.eventNames![i], data: JSON.stringify(data) }));
    expect(facts.map((f) => f.text).join('')).toBe('Let me check the weather in Paris.get_weather{"location":"Paris"}');
    expect(facts.reduce((n, f) => n + f.toolCalls, 0)).toBe(1);
    const final = facts.filter((f) => f.usage);
    expect(final).toHaveLength(1);
    expect(final[0]).toMatchObject({ usageFinal: true, usage: openAIResponses.usage(answer) });
  });
});
