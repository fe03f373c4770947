import { FAKE_TENCENT_KEY, hunyuanPromptTokens, startFakeHunyuan } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';

/** Hunyuan: one TC3-signed POST to `/`, the action in a header, the model in the body. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'tencent',
    fake: 'tencent',
    startFake: () => startFakeHunyuan(),
    // TC3 signs the Host header: the hop keeps it.
    hop: { passthrough: true, keepHost: true },
    key: FAKE_TENCENT_KEY,
    model: 'hunyuan-pro',
    text: 'Hello from the fake Hunyuan',
    chat: {
      path: '/',
      auth: (sent) =>
        expect(sent.headers.authorization).toMatch(/^TC3-HMAC-SHA256 Credential=AKIDfakeHunyuanSecretId0001\/\d{4}-\d{2}-\d{2}\/hunyuan\/tc3_request, SignedHeaders=content-type;host;x-tc-action, Signature=[0-9a-f]{64}$/),
      // Hunyuan's ChatCompletions body: `user` and `metadata` left out.
      converted: {
        body: (cx) => ({ Model: cx.model, Messages: [{ Role: 'user', Content: 'one two three' }], Stream: false, Temperature: 0 }),
        promptTokens: (sent) => hunyuanPromptTokens(sent),
      },
    },
  },
];
