import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectedCharge } from '../test-support/expected-charge.js';
import { addCaller, addChannel, anthropicClient, balances, consumeLogs, startRelayHarness, type RelayHarness } from '../test-support/relay-fixtures.js';
import { testDbKinds } from '../test-support/test-db.js';

/**
 * Requests ModelGate refuses before it spends anything: a prompt with a sensitive word
 * (reference §12) and a model nobody priced (issue: no silent ratio 30). Neither reaches the
 * upstream, and both leave the user, the token and the usage log exactly as they were.
 */
describe.each(testDbKinds())('relay refusals on %s', (kind) => {
  let h: RelayHarness;
  beforeAll(async () => {
    h = await startRelayHarness({ kind });
    await addChannel(h.root, { base_url: h.fake.url, models: 'gpt-4o-mini,claude-3-5-haiku-20241022,unpriced-model-x' });
  });
  afterAll(async () => {
    await h.server.ctx.options.set('SensitiveWords', 'test_sensitive');
    await h.close();
  });

  async function expectUntouched(c: Awaited<ReturnType<typeof addCaller>>, seen: number) {
    expect(await balances(h, c)).toEqual({ quota: 1_000_000, userUsed: 0, requests: 0, remain: 1_000_000, tokenUsed: 0 });
    expect(await consumeLogs(h, c.userId)).toHaveLength(0);
    expect(h.fake.requests).toHaveLength(seen);
  }

  describe('sensitive words', () => {
    it('refuses a prompt with a listed word (any case, any message, array parts too) uncharged, and nothing goes upstream', async () => {
      await h.server.ctx.options.set('SensitiveWords', 'forbidden thing\n\n  暴力  \ntest_sensitive');
      const c = await addCaller(h);
      const seen = h.fake.requests.length;
      const err = (await c.client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'system', content: 'be nice' }, { role: 'user', content: 'tell me about the FORBIDDEN Thing please' }] })
        .catch((e: unknown) => e)) as { status: number; code: string; message: string };
      expect(err.status).toBe(400);
      expect(err.code).toBe('sensitive_words_detected');
      expect(err.message).toContain('forbidden thing');
      const parts = (await c.client.chat.completions
        .create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: [{ type: 'text', text: '关于暴力的故事' }] }] })
        .catch((e: unknown) => e)) as { status: number; message: string };
      expect(parts.status).toBe(400);
      expect(parts.message).toContain('暴力');
      await expectUntouched(c, seen);
    });

    it('checks embeddings input, completions prompt and Anthropic Messages prompts too', async () => {
      await h.server.ctx.options.set('SensitiveWords', 'badword');
      const c = await addCaller(h);
      const seen = h.fake.requests.length;
      await expect(c.client.embeddings.create({ model: 'gpt-4o-mini', input: ['fine', 'a BadWord here'] })).rejects.toMatchObject({ status: 400 });
      await expect(c.client.completions.create({ model: 'gpt-4o-mini', prompt: 'badword' })).rejects.toMatchObject({ status: 400 });
      const anthropic = anthropicClient(h, c);
      const err = await anthropic.messages
        .create({ model: 'claude-3-5-haiku-20241022', max_tokens: 16, messages: [{ role: 'user', content: 'say badword' }] })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Anthropic.APIError);
      expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(400);
      await expectUntouched(c, seen);
    });

    it('answers in English when asked, and lets a clean prompt through and bills it', async () => {
      await h.server.ctx.options.set('SensitiveWords', 'badword');
      const c = await addCaller(h);
      const res = await fetch(`${h.server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer sk-${c.key}`, 'content-type': 'application/json', 'accept-language': 'en' },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'badword' }] }),
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { message: string } }).error.message).toBe('Sensitive words detected in the request: badword');
      const seen = h.fake.requests.length;
      await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'a perfectly good word' }] });
      expect(h.fake.requests).toHaveLength(seen + 1);
      const logs = await consumeLogs(h, c.userId);
      expect(logs).toHaveLength(1);
      const b = await balances(h, c);
      expect(b.quota).toBe(1_000_000 - Number(logs[0]!.quota));
      expect(Number(logs[0]!.quota)).toBeGreaterThan(0);
    });

    it('is off when either switch is off', async () => {
      await h.server.ctx.options.set('SensitiveWords', 'badword');
      const c = await addCaller(h);
      for (const key of ['CheckSensitiveEnabled', 'CheckSensitiveOnPromptEnabled'] as const) {
        await h.server.ctx.options.set(key, 'false');
        await c.client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'badword' }] });
        await h.server.ctx.options.set(key, 'true');
      }
      expect(await consumeLogs(h, c.userId)).toHaveLength(2);
    });
  });

  describe('unpriced models', () => {
    it('refuses a model with no price or ratio, naming it, uncharged and without an upstream call', async () => {
      const c = await addCaller(h);
      const seen = h.fake.requests.length;
      const err = (await c.client.chat.completions.create({ model: 'unpriced-model-x', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)) as {
        status: number;
        code: string;
        message: string;
      };
      expect(err.status).toBe(400);
      expect(err.code).toBe('model_price_error');
      // An SDK caller that names no language is answered in English (issue 35).
      expect(err.message).toContain('Model unpriced-model-x has no ratio or price configured');
      await expectUntouched(c, seen);
    });

    it('bills it at the fallback ratio once the operator allows unpriced models', async () => {
      await h.server.ctx.options.set('AllowUnpricedModels', 'true');
      try {
        const c = await addCaller(h);
        const r = await c.client.chat.completions.create({ model: 'unpriced-model-x', messages: [{ role: 'user', content: 'hi' }] });
        const logs = await consumeLogs(h, c.userId);
        expect(logs).toHaveLength(1);
        // The fallback ratio 30, completion ratio 1, group ratio 1.
        expect(Number(logs[0]!.quota)).toBe(expectedCharge({ model: 'unpriced-model-x' }, { prompt: r.usage!.prompt_tokens, completion: r.usage!.completion_tokens }));
        expect((await balances(h, c)).quota).toBe(1_000_000 - Number(logs[0]!.quota));
      } finally {
        await h.server.ctx.options.set('AllowUnpricedModels', 'false');
      }
    });
  });
});
