import { expectedMessagesUsage, startFakeAnthropic } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';
import { outputCap } from '../../billing/output-caps.js';

/** Anthropic Messages: an OpenAI caller converted, a Messages caller passed through unchanged. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'anthropic',
    fake: 'anthropic',
    startFake: () => startFakeAnthropic(),
    hop: { passthrough: true },
    model: 'claude-3-5-haiku-20241022',
    text: 'Hello from the fake Claude',
    chat: {
      path: '/v1/messages',
      auth: (sent, cx) => expect(sent.headers).toMatchObject({ 'x-api-key': cx.key, 'anthropic-version': '2023-06-01' }),
      // Messages requires max_tokens (the model's output cap), `user` becomes metadata.user_id.
      converted: {
        body: (cx) => ({ model: cx.model, max_tokens: outputCap(cx.model), messages: cx.messages, temperature: 0, metadata: { user_id: 'u-1' } }),
        promptTokens: (sent) => expectedMessagesUsage(sent).input_tokens,
      },
    },
    stream: { body: { stream: true } },
    messagesStreamBody: (cx) => ({ model: cx.model, max_tokens: 50, messages: cx.messages, stream: true }),
  },
];
