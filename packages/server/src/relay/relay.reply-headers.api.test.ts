import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, addChannel, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/** Replies written on the raw socket (non-stream, stream, errors) still carry the relay's headers. */
let h: RelayHarness;

beforeAll(async () => {
  h = await startRelayHarness();
  await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4' });
});
afterAll(() => h.close());

async function post(key: string, body: unknown) {
  return fetch(`${h.server.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer sk-${key}`, 'content-type': 'application/json', origin: 'https://app.example' },
    body: JSON.stringify(body),
  });
}

describe('relay reply headers', () => {
  it('non-stream, stream and upstream-error replies carry CORS, the request id and a correct length', async () => {
    const c = await addCaller(h);
    const messages = [{ role: 'user', content: 'Hi' }];
    const plain = await post(c.key, { model: 'gpt-4', messages });
    const text = await plain.text();
    expect(plain.status).toBe(200);
    expect(plain.headers.get('access-control-allow-origin')).toBe('*');
    expect(plain.headers.get('x-oneapi-request-id')).toMatch(/^[0-9a-z]+$/);
    expect(plain.headers.get('content-type')).toContain('application/json');
    expect(Number(plain.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text).choices[0].message.content).toBe('Hello from the fake OpenAI');

    const stream = await post(c.key, { model: 'gpt-4', messages, stream: true });
    expect(stream.headers.get('access-control-allow-origin')).toBe('*');
    expect(stream.headers.get('content-type')).toBe('text/event-stream');
    expect(stream.headers.get('x-oneapi-request-id')).toBeTruthy();
    expect(await stream.text()).toContain('data: [DONE]');

    h.fake.setFault({ status: 500, times: 1 });
    const failed = await post(c.key, { model: 'gpt-4', messages });
    expect(failed.status).toBe(500);
    expect(failed.headers.get('access-control-allow-origin')).toBe('*');
    expect(await failed.json()).toMatchObject({ error: { message: expect.stringContaining('request id') } });
  });
});
