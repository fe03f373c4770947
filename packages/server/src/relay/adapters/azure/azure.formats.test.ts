import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** Azure OpenAI's documented bodies (fixtures/) through the adapter: deployment URL, api-key, OpenAI wire. */
const adapter = adapterOf('azure');

describe('Azure OpenAI', () => {
  it('addresses the deployment (model without dots) with the channel api-version and the api-key header', async () => {
    const body = fixtureBody('azure', 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: 'gpt-4.1', stream: true, ch: { key: 'az-key', baseUrl: 'https://res.openai.azure.com/', other: '2024-10-21' } }), body);
    expect(req.url).toBe('https://res.openai.azure.com/openai/deployments/gpt-41/chat/completions?api-version=2024-10-21');
    expect(req.headers).toEqual({ 'api-key': 'az-key' });
    expect(req.body).toEqual({ ...body, model: 'gpt-4.1' });
  });

  it('reads cached prompt tokens of an answer and the usage chunk of a stream', async () => {
    const call = callOf(adapter, { model: 'gpt-4o', ch: { baseUrl: 'https://res.openai.azure.com' } });
    expect(adapter.convertResponse(call, fixtureBody('azure', 'chat.response'), testContext('gpt-4o'))!.usage).toMatchObject({ promptTokens: 1470, completionTokens: 12, cachedTokens: 1280 });
    const run = await replayStream(adapter, { ...call, stream: true }, testContext('gpt-4o', { stream: true, clientWantsUsage: true }), sseOf(providerFixture('azure', 'chat.stream'), { done: true }));
    expect(run.usage).toMatchObject({ promptTokens: 1470, completionTokens: 2, cachedTokens: 1280 });
    expect(run.usageFinal).toBe(true);
    expect(run.text).toBe('Yes.');
  });

  it('reads Azure errors that have a code but no type', () => {
    expect(classifiedFixture(adapter, 'azure', 'error.deployment-not-found')).toMatchObject({ status: 404, type: 'upstream_error', code: 'DeploymentNotFound', message: expect.stringContaining('The API deployment for this resource does not exist'), disablesChannel: false });
    expect(classifiedFixture(adapter, 'azure', 'error.rate-limit')).toMatchObject({ status: 429, code: '429', retryable: true });
  });
});
