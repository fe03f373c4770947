import { createSign } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf, type Shape } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { makeServiceAccount, startFakeVertex, type FakeVertex } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('vertex', name);
const fixtureBody = (name: string) => fixture(name).body as Obj;
const ROOT = '/v1/projects/fake-project/locations/us-east5/publishers';
const CLAUDE = `${ROOT}/anthropic/models/claude-sonnet-4-5@20250929`;
const GEMINI = `${ROOT}/google/models/gemini-2.0-flash`;
const weatherTool = (fixtureBody('gemini.request').tools as Obj[])[0]!;

/** The RS256 JWT-bearer assertion a client signs with the account's key. */
function assertion(privateKey: string, email: string, aud: string): string {
  const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
  const now = Math.floor(Date.now() / 1000);
  const input = `${b64({ alg: 'RS256', typ: 'JWT' })}.${b64({ iss: email, scope: 'https://www.googleapis.com/auth/cloud-platform', aud, iat: now, exp: now + 3600 })}`;
  return `${input}.${createSign('RSA-SHA256').update(input).sign(privateKey).toString('base64url')}`;
}

const sa = makeServiceAccount({ tokenUri: '' });

async function exchange(fake: FakeVertex): Promise<Response> {
  const form = new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion: assertion(sa.key.private_key!, sa.account.clientEmail, fake.tokenUri) });
  return fetch(fake.tokenUri, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() });
}

/**
 * A Gemini body with each candidate's parts and log probabilities taken out (the fake sends its own
 * parts, and computes no log probabilities), and the thought count only where the other has it.
 */
function geminiEnvelope(b: Obj, like?: Obj): Obj {
  const candidates = (b.candidates as Obj[]).map((c) => {
    const { avgLogprobs: _l, ...rest } = c;
    return { ...rest, content: { ...(c.content as Obj), parts: [] } };
  });
  const usage = { ...(b.usageMetadata as Obj) };
  if (like && !('thoughtsTokenCount' in (like.usageMetadata as Obj))) delete usage.thoughtsTokenCount;
  return { ...b, candidates, usageMetadata: usage };
}

const partShapes = (b: Obj): string[] => (b.candidates as Obj[]).flatMap((c) => ((c.content as Obj).parts as Obj[]).map((p) => JSON.stringify(shapeOf(p))));
const DOCUMENTED_PARTS = new Set([...partShapes(fixtureBody('gemini.response')), ...(fixture('gemini.stream').events as Obj[]).flatMap(partShapes)]);

describe('vertex fake serves the documented shapes', () => {
  let fake: FakeVertex;
  let token = '';
  const post = (path: string, body: unknown, bearer = token) => fetch(`${fake.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${bearer}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await startFakeVertex({ serviceAccounts: [sa.account] });
    token = ((await (await exchange(fake)).json()) as { access_token: string }).access_token;
  });
  afterAll(() => fake.close());

  it('the token answer and the invalid_grant refusal have the documented shapes', async () => {
    const res = await exchange(fake);
    const answer = (await res.json()) as Obj;
    expect(res.status).toBe(200);
    expect(shapeOf(answer)).toEqual(shapeOf(fixtureBody('oauth.token.response')));
    expect(answer).toMatchObject({ expires_in: 3599, token_type: 'Bearer' });
    fake.refuseTokens('Invalid JWT Signature.');
    try {
      const refused = await exchange(fake);
      expect(refused.status).toBe(fixture('oauth.error.invalid-grant').status);
      expect(await refused.json()).toEqual(fixtureBody('oauth.error.invalid-grant'));
    } finally {
      fake.refuseTokens(null);
    }
  });

  it('a Gemini answer has gemini.response’s shape, a text or function call part of a documented shape', async () => {
    for (const extra of [{}, { tools: [weatherTool] }]) {
      const res = await post(`${GEMINI}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }], ...extra });
      const json = (await res.json()) as Obj;
      expect(res.status).toBe(200);
      expect(shapeOf(geminiEnvelope(json))).toEqual(shapeOf(geminiEnvelope(fixtureBody('gemini.response'), json)));
      for (const s of partShapes(json)) expect(DOCUMENTED_PARTS).toContain(s);
      expect((json.usageMetadata as Obj).trafficType).toBe('ON_DEMAND');
    }
  });

  it('each Gemini SSE chunk has the shape of the documented running or final chunk', async () => {
    const text = await (await post(`${GEMINI}:streamGenerateContent?alt=sse`, { contents: [{ role: 'user', parts: [{ text: 'hi there' }] }] })).text();
    const served = parseSseData(text).map((d) => JSON.parse(d) as Obj);
    const documented = fixture('gemini.stream').events as Obj[];
    expect(served.length).toBeGreaterThan(1);
    const shape = (b: Obj, like?: Obj): Shape => shapeOf(geminiEnvelope(b, like));
    for (const chunk of served.slice(0, -1)) expect(shape(chunk)).toEqual(shape(documented[0]!));
    expect(shape(served.at(-1)!)).toEqual(shape(documented.at(-1)!, served.at(-1)!));
    for (const s of served.flatMap(partShapes)) expect(DOCUMENTED_PARTS).toContain(s);
    expect(served.map((c) => c.responseId).every((id) => id === served[0]!.responseId)).toBe(true);
  });

  /** A Claude answer with its content blocks taken out (checked one by one against the documented blocks). */
  const claudeEnvelope = (b: Obj): Obj => ({ ...b, content: [] });
  /** A block's shape, a tool call's input as an object whatever its arguments (the fake's depend on the tool). */
  const blockShape = (c: Obj) => JSON.stringify(shapeOf('input' in c ? { ...c, input: {} } : c));
  const BLOCKS = new Set((fixtureBody('claude.response').content as Obj[]).map(blockShape));

  it('a Claude rawPredict answer has claude.response’s shape, text or tool_use blocks of the documented shapes', async () => {
    for (const extra of [{}, { tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }], tool_choice: { type: 'any' } }]) {
      const res = await post(`${CLAUDE}:rawPredict`, { anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: [{ role: 'user', content: 'hi there' }], ...extra });
      const json = (await res.json()) as Obj;
      expect(res.status).toBe(200);
      expect(shapeOf(claudeEnvelope(json))).toEqual(shapeOf(claudeEnvelope(fixtureBody('claude.response'))));
      for (const block of json.content as Obj[]) expect(BLOCKS).toContain(blockShape(block));
    }
  });

  it.each([
    ['a text reply', {}],
    ['a tool call', { tools: [{ name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { location: { type: 'string' } } } }], tool_choice: { type: 'any' } }],
  ])('every streamRawPredict event of %s has the shape of the documented event of its kind', async (_what, extra) => {
    const text = await (await post(`${CLAUDE}:streamRawPredict`, { anthropic_version: 'vertex-2023-10-16', max_tokens: 64, messages: [{ role: 'user', content: 'hi there' }], stream: true, ...extra })).text();
    const served = parseSseData(text).map((d) => JSON.parse(d) as Obj);
    expect([...text.matchAll(/^event: (.+)$/gm)].map((m) => m[1])).toEqual(served.map((e) => e.type));
    const kind = (e: Obj) => [e.type, (e.content_block as Obj | undefined)?.type, (e.delta as Obj | undefined)?.type].join('/');
    const documented = fixture('claude.stream').events as Obj[];
    for (const ev of served) {
      const like = documented.find((d) => kind(d) === kind(ev));
      expect(like, kind(ev)).toBeDefined();
      expect(shapeOf(ev), kind(ev)).toEqual(shapeOf(like));
    }
    // The documented order of the envelope events.
    expect(served[0]!.type).toBe('message_start');
    expect(served.slice(-2).map((e) => e.type)).toEqual(['message_delta', 'message_stop']);
  });

  it('refusals have the documented statuses and bodies', async () => {
    const cases: Array<[string, () => Promise<Response>, 'equal' | 'shape']> = [
      ['error.invalid-argument', () => post(`${GEMINI}:generateContent`, { contents: [{ parts: [{ text: 'no role' }] }] }), 'equal'],
      ['error.permission-denied', () => post(`/v1/projects/other-project/locations/us-east5/publishers/google/models/gemini-2.0-flash:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }), 'shape'],
      ['error.not-found', () => post(`${GEMINI}:predict`, {}), 'shape'],
      ['error.claude-invalid-request', () => post(`${CLAUDE}:rawPredict`, { max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }), 'shape'],
    ];
    for (const [name, call, how] of cases) {
      const res = await call();
      expect(res.status, name).toBe(fixture(name).status);
      const body = (await res.json()) as Obj;
      if (how === 'equal') expect(body, name).toEqual(fixtureBody(name));
      else expect(shapeOf(body), name).toEqual(shapeOf(fixtureBody(name)));
    }
  });

  it('an unknown token is refused 401 without details, an expired one with the documented ACCESS_TOKEN_EXPIRED detail', async () => {
    const unknown = await post(`${GEMINI}:generateContent`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }, 'ya29.not-issued');
    const doc = fixtureBody('error.unauthenticated') as { error: Obj };
    expect(unknown.status).toBe(fixture('error.unauthenticated').status);
    const { details: _d, ...bare } = doc.error;
    expect(await unknown.json()).toEqual({ error: bare });

    const shortLived = await startFakeVertex({ serviceAccounts: [sa.account], tokenLifetimeSec: 0 });
    try {
      const expired = ((await (await exchange(shortLived)).json()) as { access_token: string }).access_token;
      const res = await fetch(`${shortLived.url}${GEMINI}:generateContent`, { method: 'POST', headers: { authorization: `Bearer ${expired}` }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual(doc);
    } finally {
      await shortLived.close();
    }
  });
});
