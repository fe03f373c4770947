import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_PALM_REPLY, startFakePalm, type FakePalm } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('palm', name);

describe('palm fake serves the documented shapes', () => {
  let fake: FakePalm;
  let blocked: FakePalm;
  const generate = (f: FakePalm, model = 'chat-bison-001', key = 'palm-key') =>
    fetch(`${f.url}/v1beta2/models/${model}:generateMessage?key=${key}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(fixture('chat.request').body) });

  beforeAll(async () => {
    fake = await startFakePalm({ apiKeys: ['palm-key'] });
    blocked = await startFakePalm({ blockReason: 'SAFETY' });
  });
  afterAll(async () => {
    await fake.close();
    await blocked.close();
  });

  it('an answer has chat.response’s shape, with the fake’s reply and the asked messages', async () => {
    const json = (await (await generate(fake)).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('chat.response').body));
    expect(json).toEqual({ candidates: [{ author: '1', content: FAKE_PALM_REPLY }], messages: (fixture('chat.request').body as { prompt: Obj }).prompt.messages });
  });

  it('a blocked answer has chat.response.blocked’s shape', async () => {
    const json = (await (await generate(blocked)).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('chat.response.blocked').body));
    expect(json.filters).toEqual([{ reason: 'SAFETY' }]);
  });

  it('a bad key and an unknown model are the documented errors', async () => {
    const badKey = await generate(fake, 'chat-bison-001', 'nope');
    expect(badKey.status).toBe(fixture('error.api-key-invalid').status);
    expect(await badKey.json()).toEqual(fixture('error.api-key-invalid').body);
    const missing = await generate(fake, 'text-bison-009');
    const doc = fixture('error.not-found');
    expect(missing.status).toBe(doc.status);
    const body = (await missing.json()) as { error: Obj };
    expect(shapeOf(body)).toEqual(shapeOf(doc.body));
    expect(body.error.message).toBe('models/text-bison-009 is not found for API version v1beta2, or is not supported for generateMessage.');
  });
});
