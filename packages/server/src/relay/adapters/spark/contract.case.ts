import { FAKE_SPARK_KEY, sparkPromptTokens, startFakeSpark } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';

/** iFlytek Spark: a WebSocket upstream, so no HTTP hop; what the fake received (the signed query, the request frame) is read back. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'spark',
    fake: 'spark',
    startFake: async () => {
      const fake = await startFakeSpark();
      return {
        url: fake.url,
        close: () => fake.close(),
        received: () => fake.requests.map((r) => ({ method: 'GET', url: r.path, headers: r.query, body: Buffer.from(JSON.stringify(r.frame ?? null)) })),
      };
    },
    key: FAKE_SPARK_KEY,
    model: 'SparkDesk-v3.5',
    text: 'Hello from the fake Spark',
    chat: {
      path: '/v3.5/chat',
      auth: (sent) =>
        expect(Buffer.from(String(sent.headers.authorization), 'base64').toString()).toMatch(/^api_key="fakeSparkApiKey0000000000000001", algorithm="hmac-sha256", headers="host date request-line", signature="[\w+/]+=*"$/),
      // The request frame: the version's domain, the app id and a per-user uid; Spark's range excludes a temperature of 0 (left out).
      converted: {
        body: (cx) => ({ header: { app_id: 'fakeapp1', uid: `user-${cx.userId}` }, parameter: { chat: { domain: 'generalv3.5' } }, payload: { message: { text: cx.messages } } }),
        promptTokens: (sent) => sparkPromptTokens(sent),
      },
    },
  },
];
