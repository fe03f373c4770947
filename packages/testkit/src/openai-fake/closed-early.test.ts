import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAULT_HEADER } from './faults.js';
import { startFakeOpenAI } from './server.js';
import type { FakeOpenAI } from './types.js';

let fake: FakeOpenAI;

beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(() => fake.close());

async function waitUntil(check: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
}

describe('recorded request closedEarly', () => {
  it('is set when the caller cancels a slow stream, and absent for a completed reply', async () => {
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], stream: true });
    const headers = { 'content-type': 'application/json' };
    await (await fetch(`${fake.baseURL}/chat/completions`, { method: 'POST', headers, body })).text();
    const done = fake.requests.at(-1)!;
    expect(done.closedEarly).toBeUndefined();

    const controller = new AbortController();
    const res = await fetch(`${fake.baseURL}/chat/completions`, {
      method: 'POST',
      headers: { ...headers, [FAULT_HEADER]: JSON.stringify({ chunkDelayMs: 200 }) },
      body,
      signal: controller.signal,
    });
    const reader = res.body!.getReader();
    await reader.read();
    const cancelled = fake.requests.at(-1)!;
    expect(cancelled.closedEarly).toBeUndefined();
    controller.abort();
    await waitUntil(() => cancelled.closedEarly === true);
    expect(cancelled.closedEarly).toBe(true);
  });
});
