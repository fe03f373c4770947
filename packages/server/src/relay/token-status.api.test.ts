import { TokenStatus } from '@modelgate/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addCaller, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';

/**
 * A request that found its token expired or exhausted stores that status, but it decided on an
 * earlier (often cached) read: the write must not undo an extension or top-up made meanwhile.
 */
describe('storing an expired or exhausted token', () => {
  let h: RelayHarness;

  beforeAll(async () => {
    h = await startRelayHarness();
  });
  afterAll(async () => {
    await h?.close();
  });

  const status = async (id: number) =>
    Number((await h.server.ctx.db.db.selectFrom('tokens').select('status').where('id', '=', id).executeTakeFirstOrThrow()).status);

  it('marks a token exhausted only while it is still out of quota', async () => {
    const topped = await addCaller(h, { remain: 500 });
    await h.server.ctx.relay.markTokenStatus(topped.tokenId, TokenStatus.Exhausted);
    expect(await status(topped.tokenId)).toBe(TokenStatus.Enabled);
    const empty = await addCaller(h, { remain: 0 });
    await h.server.ctx.relay.markTokenStatus(empty.tokenId, TokenStatus.Exhausted);
    expect(await status(empty.tokenId)).toBe(TokenStatus.Exhausted);
  });

  it('marks a token expired only while its expiry is still past', async () => {
    const extended = await addCaller(h, { token: { expired_time: Math.floor(Date.now() / 1000) + 3600 } });
    await h.server.ctx.relay.markTokenStatus(extended.tokenId, TokenStatus.Expired);
    expect(await status(extended.tokenId)).toBe(TokenStatus.Enabled);
    const past = await addCaller(h, { token: { expired_time: Math.floor(Date.now() / 1000) - 10 } });
    await h.server.ctx.relay.markTokenStatus(past.tokenId, TokenStatus.Expired);
    expect(await status(past.tokenId)).toBe(TokenStatus.Expired);
    // A manually disabled token stays disabled.
    const off = await addCaller(h, { remain: 0, token: { status: TokenStatus.Disabled } });
    await h.server.ctx.relay.markTokenStatus(off.tokenId, TokenStatus.Exhausted);
    expect(await status(off.tokenId)).toBe(TokenStatus.Disabled);
  });
});
