import { expect } from 'vitest';
import { rootClient } from './api-client.js';
import { addChannel } from './relay-fixtures.js';

/**
 * For a node started as its own process: a channel for `model` (default gpt-4) to `upstream`, and an
 * unlimited API token of root, whose balance is set to 500 000 000. Returns the token's key.
 */
export async function rootTokenKey(url: string, upstream: string, model = 'gpt-4'): Promise<string> {
  const root = await rootClient(url);
  await addChannel(root, { base_url: upstream, models: model });
  expect((await root.post('/api/token/', { name: 'loops', remain_quota: 0, unlimited_quota: true, expired_time: -1 })).body.success).toBe(true);
  expect((await root.put('/api/user/', { id: root.userId, quota: 500_000_000 })).body.success).toBe(true);
  const tokens = (await root.get('/api/token/?p=0&size=10')).body.data as Array<{ key: string; name: string }>;
  return tokens.find((t) => t.name === 'loops')!.key;
}
