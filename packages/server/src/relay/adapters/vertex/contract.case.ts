import { makeServiceAccount, startFakeVertex } from '@modelgate/testkit';
import { expect } from 'vitest';
import type { ContractCase } from '../../../test-support/contract-case.js';
import { geminiConvertedChat } from '../gemini/contract.case.js';

/** Vertex AI's Gemini publisher: a service-account key exchanged for a bearer token, the project and region in the path. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'vertex',
    fake: 'vertex',
    startFake: async () => {
      const sa = makeServiceAccount({ tokenUri: '' });
      const fake = await startFakeVertex({ serviceAccounts: [sa.account] });
      // The key names the fake's token endpoint, known once it listens.
      return { url: fake.url, close: () => fake.close(), channelKey: JSON.stringify({ ...sa.key, token_uri: fake.tokenUri }) };
    },
    hop: { passthrough: true },
    model: 'gemini-2.0-flash',
    text: 'Hello from the fake Gemini',
    chat: {
      path: '/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:generateContent',
      auth: (sent) => expect(sent.headers.authorization).toMatch(/^Bearer ya29\./),
      // Gemini's body, as for a Gemini channel.
      converted: geminiConvertedChat,
    },
    stream: { path: '/v1/projects/fake-project/locations/us-central1/publishers/google/models/gemini-2.0-flash:streamGenerateContent?alt=sse' },
  },
];
