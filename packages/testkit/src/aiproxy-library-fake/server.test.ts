import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { parseSseData } from '../openai-fake/sse-client.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_AIPROXY_ANSWER, FAKE_AIPROXY_DOCUMENTS, FAKE_AIPROXY_LIBRARY_ID, startFakeAIProxyLibrary, type FakeAIProxyLibrary } from './index.js';

type Obj = Record<string, unknown>;
const fixture = (name: string) => providerFixture('aiproxy-library', name);
const ask = (stream: boolean, libraryId = FAKE_AIPROXY_LIBRARY_ID) => ({ ...(fixture('ask.request').body as Obj), libraryId, stream });

describe('aiproxy-library fake serves the documented shapes', () => {
  let fake: FakeAIProxyLibrary;
  const post = (body: unknown) => fetch(`${fake.url}/api/library/ask`, { method: 'POST', headers: { 'api-key': 'lib-key', 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await startFakeAIProxyLibrary();
  });
  afterAll(() => fake.close());

  it('an answer has ask.response’s shape, with the fake’s answer and documents', async () => {
    const json = (await (await post(ask(false))).json()) as Obj;
    expect(shapeOf(json)).toEqual(shapeOf(fixture('ask.response').body));
    expect(json).toMatchObject({ success: true, answer: FAKE_AIPROXY_ANSWER, documents: FAKE_AIPROXY_DOCUMENTS });
  });

  it('a stream’s frames have ask.stream’s shapes and end with [DONE]', async () => {
    const data = parseSseData(await (await post(ask(true))).text());
    expect(data.at(-1)).toBe('[DONE]');
    const frames = data.slice(0, -1).map((d) => JSON.parse(d) as Obj);
    const documented = fixture('ask.stream').events as Obj[];
    for (const f of frames) expect(shapeOf(f)).toEqual(shapeOf(documented.find((d) => d.finish === f.finish)));
    expect(frames.map((f) => f.content).join('')).toBe(FAKE_AIPROXY_ANSWER);
    expect(frames.at(-1)).toMatchObject({ finish: true, documents: FAKE_AIPROXY_DOCUMENTS });
  });

  it('an unknown library is refused in error.library-missing’s shape (HTTP 200)', async () => {
    const res = await post(ask(false, 'lib-none'));
    expect(res.status).toBe(fixture('error.library-missing').status);
    expect(shapeOf(await res.json())).toEqual(shapeOf(fixture('error.library-missing').body));
  });
});
