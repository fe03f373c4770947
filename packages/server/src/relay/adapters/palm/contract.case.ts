import { FAKE_PALM_REPLY, startFakePalm } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';

const KEY = 'AIzaSyContractPalmKey_0000';

/** PaLM 2 generateMessage: the model and the key in the URL, no usage reported (counted locally). */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'palm',
    fake: 'palm',
    startFake: () => startFakePalm({ apiKeys: [KEY] }),
    hop: { passthrough: true },
    key: KEY,
    model: 'chat-bison-001',
    text: FAKE_PALM_REPLY,
    noUpstreamStream: 'generateMessage has no streaming variant: a streamed caller gets the whole reply replayed as one chunk',
    chat: {
      path: `/v1beta2/models/chat-bison-001:generateMessage?key=${KEY}`,
      auth: (sent) => expect(sent.headers.authorization).toBeUndefined(),
      converted: {
        body: () => ({ prompt: { messages: [{ author: '0', content: 'one two three' }] }, candidateCount: 1, temperature: 0 }),
        // OpenAI's counting rule: 3 content tokens + 4 for the message + 3 priming the reply.
        promptTokens: () => 10,
      },
    },
  },
];
