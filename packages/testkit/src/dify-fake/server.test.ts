import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { difyUsageOf, FAKE_DIFY_ANSWER, startFakeDify, type FakeDify } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('dify', name);
const request = fixture('chat.request').body as Obj;
/** A documented usage or event with the fields the fake fills from no knowledge base emptied. */
const noResources = (body: Obj): Obj => ({ ...body, metadata: { ...(body.metadata as Obj), retriever_resources: [] } });

describe('dify fake serves the documented shapes', () => {
  let chat: FakeDify;
  let agent: FakeDify;
  let failing: FakeDify;
  const send = (f: FakeDify, body: Obj, key = 'app-test') => fetch(`${f.url}/v1/chat-messages`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const events = async (f: FakeDify) => parseSseData(await (await send(f, { ...request, response_mode: 'streaming' })).text()).map((d) => JSON.parse(d) as Obj);

  beforeAll(async () => {
    chat = await startFakeDify({ appKeys: ['app-test'] });
    agent = await startFakeDify({ agent: true });
    failing = await startFakeDify({ failMidStream: true });
  });
  afterAll(async () => {
    await chat.close();
    await agent.close();
    await failing.close();
  });

  it('a blocking answer has chat.response’s shape (no retriever resources), with the fake’s answer and usage', async () => {
    const json = (await (await send(chat, request)).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(noResources(fixture('chat.response').body as Obj)));
    expect(json.answer).toBe(FAKE_DIFY_ANSWER);
    expect((json.metadata as Obj).usage).toEqual(difyUsageOf(String(request.query), FAKE_DIFY_ANSWER));
  });

  it('every streamed event has the shape of the documented event of its name', async () => {
    const check = (served: Obj[], name: string) => {
      const documented = fixture(name).events as Obj[];
      for (const ev of served) {
        const like = documented.find((d) => d.event === ev.event)!;
        expect(like, `${name} has ${String(ev.event)}`).toBeDefined();
        expect(shapeOf(ev), `${name} ${String(ev.event)}`).toEqual(shapeOf(ev.event === 'message_end' ? noResources(like) : like));
      }
    };
    const plain = await events(chat);
    expect(plain.map((e) => e.event)).toEqual(['message', 'message', 'message', 'message', 'message', 'message_end']);
    expect(plain.slice(0, -1).map((e) => e.answer).join('')).toBe(FAKE_DIFY_ANSWER);
    check(plain, 'chat.stream');
    const agentEvents = await events(agent);
    expect(agentEvents[0]!.event).toBe('agent_thought');
    check(agentEvents, 'chat.stream.agent');
    const failed = await events(failing);
    expect(failed.map((e) => e.event)).toEqual(['message', 'error']);
    check(failed, 'chat.stream.error');
  });

  it('refusals have the documented error body', async () => {
    const unauthorized = await send(chat, request, 'app-wrong');
    expect(unauthorized.status).toBe(401);
    expect(await unauthorized.json()).toEqual(fixture('error.unauthorized').body);
    const invalid = await send(chat, { ...request, query: '' });
    expect(invalid.status).toBe(400);
    expect(shapeOf(await invalid.json())).toEqual(shapeOf(fixture('error.invalid-param').body));
  });
});
