import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shapeOf } from '../fixture-shape.js';
import { providerFixture } from '../provider-fixtures.js';
import { FAKE_CLOUDFLARE_ACCOUNT, startFakeCloudflare, type FakeCloudflare } from './index.js';

const fixture = (name: string) => providerFixture('cloudflare', name);

describe('cloudflare fake refuses in the documented v4 envelope', () => {
  let fake: FakeCloudflare;
  const chat = (body: unknown, token = 'cf-token', account = FAKE_CLOUDFLARE_ACCOUNT) =>
    fetch(`${fake.url}/client/v4/accounts/${account}/ai/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  beforeAll(async () => {
    fake = await startFakeCloudflare({ apiTokens: ['cf-token'] });
  });
  afterAll(() => fake.close());

  it('a bad token is error.authentication, exactly', async () => {
    const res = await chat(fixture('chat.request').body, 'wrong');
    expect(res.status).toBe(fixture('error.authentication').status);
    expect(await res.json()).toEqual(fixture('error.authentication').body);
  });

  it('another account gets the same body as a 403', async () => {
    const res = await chat(fixture('chat.request').body, 'cf-token', 'f'.repeat(32));
    expect(res.status).toBe(403);
    expect(await res.json()).toEqual(fixture('error.authentication').body);
  });

  // The fake has no model catalogue: any `@cf/`/`@hf/` name runs, so the refusal is for other names.
  it('a model that is not a Workers AI name is error.model-not-found, naming it', async () => {
    const other = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(other.status).toBe(fixture('error.model-not-found').status);
    const body = (await other.json()) as { errors: Array<{ message: string }> };
    expect(shapeOf(body)).toEqual(shapeOf(fixture('error.model-not-found').body));
    expect(body.errors[0]!.message).toBe('No such model gpt-4o or task');
  });
});
