import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } from '../../../test-support/adapter-replay.js';
import { testContext } from '../../../test-support/convert-fixtures.js';

/** Cloudflare Workers AI's OpenAI-compatible endpoints (fixtures/) through the adapter. */
const adapter = adapterOf('cloudflare');
const ACCOUNT = '0123456789abcdef0123456789abcdef';

describe('Cloudflare', () => {
  it('places the account in the path and the token as Bearer, body unchanged', async () => {
    const body = fixtureBody('cloudflare', 'chat.request');
    const req = await builtRequest(adapter, callOf(adapter, { model: '@cf/meta/llama-3.1-8b-instruct', ch: { key: `${ACCOUNT}|cf-token` } }), body);
    expect(req.url).toBe(`https://api.cloudflare.com/client/v4/accounts/${ACCOUNT}/ai/v1/chat/completions`);
    expect(req.headers).toEqual({ authorization: 'Bearer cf-token' });
    expect(req.body).toEqual(body);
  });

  it('reads the answer usage and relays the stream, counted locally at its end', async () => {
    const call = callOf(adapter, { model: '@cf/meta/llama-3.1-8b-instruct', ch: { other: ACCOUNT } });
    expect(adapter.convertResponse(call, fixtureBody('cloudflare', 'chat.response'), testContext(call.model))!.usage).toMatchObject({ promptTokens: 16, completionTokens: 6 });
    const cx = testContext(call.model, { stream: true, clientWantsUsage: true });
    const counted = { promptTokens: 5, completionTokens: 2, cachedTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0, audioInputTokens: 0, audioOutputTokens: 0 };
    const run = await replayStream(adapter, { ...call, stream: true }, cx, sseOf(providerFixture('cloudflare', 'chat.stream'), { done: true }), counted);
    expect(run.usage).toBeUndefined();
    // Relayed as they came, completed with `usage: null` where OpenAI's chunk schema wants it (usage was asked for).
    expect(run.frames.slice(0, 3)).toEqual((providerFixture('cloudflare', 'chat.stream').events as Record<string, unknown>[]).map((e) => ('usage' in e ? e : { ...e, usage: null })));
    expect(run.frames.at(-2)).toMatchObject({ id: 'id-1733764871400', choices: [], usage: { prompt_tokens: 5, completion_tokens: 2, total_tokens: 7 } });
    expect(run.frames.at(-1)).toBe('[DONE]');
  });

  it('reads the v4 envelope errors; code 10000 switches the channel off', () => {
    expect(classifiedFixture(adapter, 'cloudflare', 'error.authentication')).toMatchObject({ status: 401, code: '10000', message: 'Authentication error', disablesChannel: true });
    expect(classifiedFixture(adapter, 'cloudflare', 'error.model-not-found')).toMatchObject({ status: 400, code: '5007', disablesChannel: false, retryable: false });
  });
});
