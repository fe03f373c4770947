import { expectedMessagesUsage, startFakeBedrock } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';
import { outputCap } from '../../billing/output-caps.js';

/** Bedrock's Anthropic models: SigV4-signed `invoke`, the model (an inference profile) in the path. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'bedrock',
    fake: 'bedrock',
    startFake: () => startFakeBedrock(),
    // SigV4 signs the Host header: the hop keeps it.
    hop: { passthrough: true, keepHost: true },
    key: 'AKIDFAKE|fake-secret|us-east-1',
    model: 'claude-3-5-haiku-20241022',
    text: 'Hello from the fake Claude',
    chat: {
      path: '/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke',
      auth: (sent) => expect(sent.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=AKIDFAKE\/\d{8}\/us-east-1\/bedrock\/aws4_request, /),
      // Messages without model and stream (the path names them), the version in the body.
      converted: {
        body: (cx) => ({ anthropic_version: 'bedrock-2023-05-31', max_tokens: outputCap(cx.model), messages: cx.messages, temperature: 0, metadata: { user_id: 'u-1' } }),
        promptTokens: (sent, cx) => expectedMessagesUsage({ ...sent, model: cx.model }).input_tokens,
      },
    },
    stream: { path: '/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/invoke-with-response-stream' },
  },
];
