import { generateKeyPairSync } from 'node:crypto';
import type OpenAI from 'openai';
import { describe, expect, it, vi } from 'vitest';
import type { UpstreamSideCall } from '../../upstream.js';

/**
 * Vertex AI's documented bodies (fixtures/) through the vertex adapter, with no server: an OpenAI
 * chat caller's request becomes the documented Claude (`publishers/anthropic`, rawPredict) and
 * Gemini (`publishers/google`, generateContent) requests, signed with the access token the
 * documented token answer carries; the documented answers and streams come back as OpenAI chat;
 * every documented error is classified.
 *
 * The token exchange is the adapter's only network call: `upstreamSideCall` answers it with the
 * token endpoint's documented answer (or refusal). The provider folders are loaded by the setup file
 * before this mock exists, so the modules are reset and the replay helpers (which load the folders
 * again, now on the mocked module) imported after it.
 */
const token = vi.hoisted(() => ({ reply: { status: 200, text: '' }, calls: [] as Array<{ url: string; init: unknown }> }));
vi.mock('../../upstream.js', async (original) => ({
  ...(await original<typeof import('../../upstream.js')>()),
  upstreamSideCall: vi.fn(async (url: string, init: UpstreamSideCall) => {
    token.calls.push({ url, init });
    return token.reply;
  }),
}));
vi.resetModules();
const { providerFixture, providerFixtureNames } = await import('@modelgate/testkit');
const { adapterOf, builtRequest, callOf, classifiedFixture, fixtureBody, replayStream, sseOf } = await import('../../../test-support/adapter-replay.js');
const { testContext } = await import('../../../test-support/convert-fixtures.js');

type Obj = Record<string, unknown>;
const vertex = adapterOf('vertex');
const CLAUDE = 'claude-sonnet-4-5-20250929';
const GEMINI = 'gemini-2.5-flash';
const ROOT = 'https://us-east5-aiplatform.googleapis.com/v1/projects/my-project/locations/us-east5/publishers';
const ACCESS = (fixtureBody('vertex', 'oauth.token.response') as { access_token: string }).access_token;
const ANSWER_TOKEN = { status: 200, text: JSON.stringify(fixtureBody('vertex', 'oauth.token.response')) };

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const key = JSON.stringify({
  type: 'service_account',
  project_id: 'my-project',
  private_key_id: 'f1e2d3c4b5a6',
  private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  client_email: 'modelgate@my-project.iam.gserviceaccount.com',
  token_uri: 'https://oauth2.googleapis.com/token',
});
/** Each test its own channel id: tokens are cached per channel. */
let channelId = 100;
const call = (model: string, stream = false) => callOf(vertex, { model, stream, ch: { id: ++channelId, key, other: 'us-east5' } });

const weatherTool = { type: 'function', function: { name: 'get_weather', description: 'Get the current weather in a given location', parameters: { type: 'object', properties: { location: { type: 'string', description: 'The city and state, e.g. San Francisco, CA' } }, required: ['location'] } } } as const;
const caller = (model: string) =>
  ({
    model,
    max_tokens: 1024,
    temperature: 0.5,
    messages: [
      { role: 'system', content: 'You are a weather assistant.' },
      { role: 'user', content: 'What is the weather like in San Francisco?' },
    ],
    tools: [weatherTool],
    tool_choice: 'auto',
  }) satisfies OpenAI.ChatCompletionCreateParamsNonStreaming;

/** The first choice of each chunk (delta and finish_reason), or the usage of a usage-only chunk. */
const deltas = (frames: unknown[]) => (frames.slice(0, -1) as Obj[]).map((c) => ((c.choices as Obj[])[0] ? { delta: (c.choices as Obj[])[0]!.delta, finish: (c.choices as Obj[])[0]!.finish_reason } : { usage: c.usage }));

describe('OpenAI chat caller → Vertex requests, signed with the exchanged token', () => {
  it('Claude: rawPredict at the @ id, anthropic_version in the body and no model; the token from the JWT-bearer grant', async () => {
    token.reply = ANSWER_TOKEN;
    token.calls.length = 0;
    const req = await builtRequest(vertex, call(CLAUDE), caller(CLAUDE));
    expect(req.url).toBe(`${ROOT}/anthropic/models/claude-sonnet-4-5@20250929:rawPredict`);
    expect(req.headers).toEqual({ authorization: `Bearer ${ACCESS}` });
    expect(req.body).toEqual(fixtureBody('vertex', 'claude.request'));
    // One exchange, at the key's token_uri, with the documented grant.
    expect(token.calls).toHaveLength(1);
    expect(token.calls[0]!.url).toBe('https://oauth2.googleapis.com/token');
    const form = new URLSearchParams(String((token.calls[0]!.init as { body: string }).body));
    expect(form.get('grant_type')).toBe('urn:ietf:params:oauth:grant-type:jwt-bearer');
    expect(form.get('assertion')!.split('.')).toHaveLength(3);
  });

  it('Claude streaming: streamRawPredict with stream true', async () => {
    token.reply = ANSWER_TOKEN;
    const req = await builtRequest(vertex, call(CLAUDE, true), { ...caller(CLAUDE), stream: true });
    expect(req.url).toBe(`${ROOT}/anthropic/models/claude-sonnet-4-5@20250929:streamRawPredict`);
    expect(req.body).toEqual({ ...fixtureBody('vertex', 'claude.request'), stream: true });
  });

  it('Gemini: generateContent on publishers/google with the Gemini body (every content with its role); SSE when streaming', async () => {
    token.reply = ANSWER_TOKEN;
    const req = await builtRequest(vertex, call(GEMINI), caller(GEMINI));
    expect(req.url).toBe(`${ROOT}/google/models/${GEMINI}:generateContent`);
    expect(req.headers).toEqual({ authorization: `Bearer ${ACCESS}` });
    expect(req.body).toEqual(fixtureBody('vertex', 'gemini.request'));
    const streamed = await builtRequest(vertex, call(GEMINI, true), { ...caller(GEMINI), stream: true });
    expect(streamed.url).toBe(`${ROOT}/google/models/${GEMINI}:streamGenerateContent?alt=sse`);
    expect(streamed.body).toEqual(fixtureBody('vertex', 'gemini.request'));
  });

  it('a refused token exchange (invalid_grant) is a channel error with Google\'s words that disables the channel', async () => {
    const refusal = providerFixture('vertex', 'oauth.error.invalid-grant');
    token.reply = { status: refusal.status!, text: JSON.stringify(refusal.body) };
    const err = (await builtRequest(vertex, call(GEMINI), caller(GEMINI)).catch((e: unknown) => e)) as { name: string; upstream: Obj };
    expect(err.name).toBe('SigningError');
    expect(err.upstream).toMatchObject({ status: 500, code: 'invalid_grant', message: 'Vertex AI token exchange refused: invalid_grant: Invalid JWT Signature.', retryable: false, disablesChannel: true });
  });
});

describe('Vertex answers → OpenAI chat', () => {
  it('Claude rawPredict answer: text, the tool call, tool_calls, the usage', () => {
    const reply = vertex.convertResponse(call(CLAUDE), fixtureBody('vertex', 'claude.response'), testContext(CLAUDE))!;
    expect({ ...reply.body, created: 0 }).toEqual({
      id: 'msg_vrtx_01Hq3nGvYw8mTzKe5RbLcD2x',
      object: 'chat.completion',
      created: 0,
      model: 'claude-sonnet-4-5-20250929',
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', content: "I'll look up the current weather in San Francisco.", refusal: null, tool_calls: [{ id: 'toolu_vrtx_01Kd8sWq2NfPj6Lm3Tx9YbVe', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] },
        },
      ],
      usage: { prompt_tokens: 412, completion_tokens: 67, total_tokens: 479 },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 412, completionTokens: 67 });
  });

  it('Claude streamRawPredict stream: role, text, the tool call in fragments, finish, the usage of message_start and message_delta', async () => {
    const out = await replayStream(vertex, call(CLAUDE, true), testContext(CLAUDE, { stream: true, clientWantsUsage: true }), sseOf(providerFixture('vertex', 'claude.stream')));
    expect(out.error).toBeUndefined();
    expect(out.usageFinal).toBe(true);
    expect(out.usage).toMatchObject({ promptTokens: 412, completionTokens: 58 });
    expect(out.frames.at(-1)).toBe('[DONE]');
    for (const c of out.frames.slice(0, -1) as Obj[]) expect(c).toMatchObject({ id: 'msg_vrtx_01Rk7pTzQ4uWc2Hn8Jd5XaLm', object: 'chat.completion.chunk', model: 'claude-sonnet-4-5-20250929' });
    expect(deltas(out.frames)).toEqual([
      { delta: { role: 'assistant', content: '' }, finish: null },
      { delta: { content: "I'll look up" }, finish: null },
      { delta: { content: ' the weather.' }, finish: null },
      { delta: { tool_calls: [{ index: 0, id: 'toolu_vrtx_01Bf4eYk9QsMn7Cw2Pz6HgTr', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: '{"location": "San Fr' } }] }, finish: null },
      { delta: { tool_calls: [{ index: 0, function: { arguments: 'ancisco, CA"}' } }] }, finish: null },
      { delta: {}, finish: 'tool_calls' },
      { usage: { prompt_tokens: 412, completion_tokens: 58, total_tokens: 470 } },
    ]);
  });

  it('Gemini generateContent answer: text, the function call, tool_calls; thinking tokens count as completion and reasoning', () => {
    const reply = vertex.convertResponse(call(GEMINI), fixtureBody('vertex', 'gemini.response'), testContext(GEMINI))!;
    expect({ ...reply.body, created: 0 }).toEqual({
      id: 'chatcmpl-4Rbuae_UH9ybmecPpLqDwAQ',
      object: 'chat.completion',
      created: 0,
      model: GEMINI,
      choices: [
        {
          index: 0,
          logprobs: null,
          finish_reason: 'tool_calls',
          message: { role: 'assistant', content: 'Let me check that for you.', refusal: null, tool_calls: [{ id: 'call_reqtest1_0_0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] },
        },
      ],
      // completion = candidates 17 + thoughts 96.
      usage: { prompt_tokens: 58, completion_tokens: 113, total_tokens: 171, completion_tokens_details: { reasoning_tokens: 96 } },
    });
    expect(reply.usage).toMatchObject({ promptTokens: 58, completionTokens: 113, reasoningTokens: 96 });
  });

  it('Gemini SSE stream: text as it comes, the whole call with finish_reason on the last chunk, the final usage', async () => {
    const out = await replayStream(vertex, call(GEMINI, true), testContext(GEMINI, { stream: true, clientWantsUsage: true }), sseOf(providerFixture('vertex', 'gemini.stream')));
    expect(out.error).toBeUndefined();
    expect(out.usage).toMatchObject({ promptTokens: 58, completionTokens: 113, reasoningTokens: 96 });
    expect(out.frames.at(-1)).toBe('[DONE]');
    for (const c of out.frames.slice(0, -1) as Obj[]) expect(c).toMatchObject({ id: 'chatcmpl-1Rfuab6KB7e0mecP4cuXiAs', object: 'chat.completion.chunk', model: GEMINI });
    expect(deltas(out.frames)).toEqual([
      { delta: { role: 'assistant', content: 'Let me check' }, finish: null },
      { delta: { content: ' that for you.' }, finish: null },
      { delta: { tool_calls: [{ index: 0, id: 'call_reqtest1_0_0', type: 'function', function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA"}' } }] }, finish: 'tool_calls' },
      { usage: { prompt_tokens: 58, completion_tokens: 113, total_tokens: 171, completion_tokens_details: { reasoning_tokens: 96 } } },
    ]);
  });
});

describe('Vertex errors', () => {
  const names = providerFixtureNames('vertex').filter((n) => n.startsWith('error.'));
  /** What each documented error is: its type, whether another attempt may pass, whether the channel is switched off. */
  const expected: Record<string, { type: string; code?: string; retryable: boolean; disablesChannel: boolean }> = {
    'error.invalid-argument': { type: 'INVALID_ARGUMENT', retryable: false, disablesChannel: false },
    'error.unauthenticated': { type: 'UNAUTHENTICATED', code: 'ACCESS_TOKEN_EXPIRED', retryable: true, disablesChannel: true },
    'error.permission-denied': { type: 'PERMISSION_DENIED', code: 'IAM_PERMISSION_DENIED', retryable: true, disablesChannel: true },
    'error.not-found': { type: 'NOT_FOUND', retryable: true, disablesChannel: false },
    'error.resource-exhausted': { type: 'RESOURCE_EXHAUSTED', retryable: true, disablesChannel: false },
    'error.claude-quota': { type: 'RESOURCE_EXHAUSTED', retryable: true, disablesChannel: false },
    'error.claude-invalid-request': { type: 'invalid_request_error', retryable: false, disablesChannel: false },
  };

  it('documents the four Google statuses, the Claude envelope and the array-wrapped Claude quota error', () => {
    expect(names.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(names)('%s: classified with its status, type and message', (name) => {
    const fx = providerFixture('vertex', name);
    const body = (Array.isArray(fx.body) ? fx.body[0] : fx.body) as { error: { message: string } };
    const want = expected[name]!;
    expect(classifiedFixture(vertex, 'vertex', name)).toEqual({ status: fx.status, type: want.type, code: want.code ?? want.type, param: null, message: body.error.message, retryable: want.retryable, disablesChannel: want.disablesChannel });
  });
});
