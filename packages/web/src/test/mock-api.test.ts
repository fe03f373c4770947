import { afterEach, describe, expect, it } from 'vitest';
import { call } from '../lib/api';
import { aToken } from './fixtures';
import { contractViolations, mockApi, ok } from './mock-api';

/** The network mocks hold tests to the server's contracts (`@modelgate/shared/api`). */
describe('mockApi', () => {
  afterEach(() => {
    contractViolations.length = 0;
  });

  it('answers a route by its contract key, whatever the id and trailing slash', async () => {
    const api = mockApi({ 'GET /api/token/:id': (req) => ok(aToken(Number(req.params.id))) });
    await expect(call('GET /api/token/:id', { params: { id: 7 }, slash: true })).resolves.toMatchObject({ id: 7 });
    expect(api.find('GET', '/api/token/7/')).toHaveLength(1);
    expect(contractViolations).toEqual([]);
  });

  it('flags an answer of a shape the server never sends', async () => {
    const { key: _key, ...keyless } = aToken(1);
    // @ts-expect-error the handler's answer is typed by the route's response schema too
    mockApi({ 'GET /api/token/:id': () => ok(keyless) });
    await call('GET /api/token/:id', { params: { id: 1 } });
    expect(contractViolations).toHaveLength(1);
    expect(contractViolations[0]).toMatch(/GET \/api\/token\/:id: the test answered a shape the server never sends: data.key/);
  });

  it('flags a request body or query the server would refuse', async () => {
    mockApi({ 'POST /api/channel/batch': () => ok(0), 'GET /api/user/': () => ok({ items: [], total: 0, page: 1, page_size: 10 }) });
    // The types let strings through (the server reads decimal strings); the schema does not take this one.
    await call('POST /api/channel/batch', { body: { ids: ['a'] } });
    await call('GET /api/user/', { query: { p: 'first' } });
    expect(contractViolations.map((v) => v.split(':')[0])).toEqual(['POST /api/channel/batch', 'GET /api/user/']);
    expect(contractViolations[1]).toMatch(/p INT_REQUIRED/);
  });
});
