import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../../test-support/test-server.js';
import { rootClient, type ApiClient } from '../../test-support/api-client.js';

/** Issue 35: the channel form asks which of its models have no price before saving. */
describe('POST /api/channel/unpriced_models', () => {
  let srv: TestServer;
  let root: ApiClient;

  beforeAll(async () => {
    srv = await startTestServer();
    root = await rootClient(srv.url);
  });
  afterAll(() => srv?.close());

  it('answers the names with neither a model ratio nor a fixed price, once each', async () => {
    const r = await root.post('/api/channel/unpriced_models', { models: ['gpt-4o-mini', 'my-private-model', ' my-private-model ', '', 'gpt-4-gizmo-abc'] });
    expect(r.body).toEqual({ success: true, message: '', data: ['my-private-model'] });
  });

  it('follows the ratio table and the AllowUnpricedModels switch', async () => {
    expect((await root.put('/api/option/', { key: 'ModelRatio', value: JSON.stringify({ 'my-private-model': 1 }) })).body.success).toBe(true);
    expect((await root.post('/api/channel/unpriced_models', { models: ['my-private-model', 'other-model'] })).body.data).toEqual(['other-model']);
    expect((await root.put('/api/option/', { key: 'AllowUnpricedModels', value: 'true' })).body.success).toBe(true);
    expect((await root.post('/api/channel/unpriced_models', { models: ['other-model'] })).body.data).toEqual([]);
  });

  it('is for admins only', async () => {
    const anonymous = await fetch(`${srv.url}/api/channel/unpriced_models`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"models":[]}' });
    expect(anonymous.status).toBe(401);
  });
});
