import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addChannel, startRelayHarness, type RelayHarness } from '../../test-support/relay-fixtures.js';

/** Issue 35: a base URL copied with its `/v1` works, and a wrong path names the address it asked. */
describe('channel base URL as newcomers type it', () => {
  let h: RelayHarness;

  beforeAll(async () => {
    h = await startRelayHarness({ fake: { apiKeys: ['sk-good'] } });
  });
  afterAll(async () => {
    await h?.close();
  });

  it('a trailing /v1 (or /v1/) is not doubled: models, test and relay all reach /v1/…', async () => {
    for (const suffix of ['/v1', '/v1/']) {
      h.fake.reset();
      const fresh = await h.root.post('/api/channel/fetch_models', { base_url: `${h.fake.url}${suffix}`, key: 'sk-good' });
      expect(fresh.body).toMatchObject({ success: true });
      expect(fresh.body.data).toContain('gpt-4o-mini');
      const id = await addChannel(h.root, { base_url: `${h.fake.url}${suffix}`, key: 'sk-good', models: 'gpt-4o-mini' });
      expect((await h.root.get(`/api/channel/fetch_models/${id}`)).body.success).toBe(true);
      expect((await h.root.get(`/api/channel/test/${id}`)).body).toMatchObject({ success: true });
      expect(h.fake.requests.map((r) => r.path)).toEqual(expect.arrayContaining(['/v1/models', '/v1/chat/completions']));
      expect(h.fake.requests.some((r) => r.path.startsWith('/v1/v1'))).toBe(false);
    }
  });

  it('a 404 names the URL asked (path only, never the query) in the model fetch and the channel test', async () => {
    const base = `${h.fake.url}/wrong`;
    const fetched = await h.root.post('/api/channel/fetch_models', { base_url: base, key: 'sk-good' });
    expect(fetched.body).toEqual({ success: false, message: `Failed to fetch the model list: HTTP 404 ${base}/v1/models` });
    const id = await addChannel(h.root, { base_url: base, key: 'sk-good', models: 'gpt-4o-mini' });
    const tested = await h.root.get(`/api/channel/test/${id}`);
    expect(tested.body.success).toBe(false);
    expect(tested.body.message).toContain(`HTTP 404 ${base}/v1/chat/completions`);
    // Other statuses keep their short form: the address is not the likely cause there.
    const denied = await h.root.post('/api/channel/fetch_models', { base_url: h.fake.url, key: 'sk-wrong' });
    expect(denied.body).toEqual({ success: false, message: 'Failed to fetch the model list: HTTP 401' });
  });
});
