import { providerFixture, providerFixtureNames } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
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
