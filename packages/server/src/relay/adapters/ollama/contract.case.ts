import { startFakeOllama } from '@modelgate/testkit';
import { OPENAI_FAKE_TEXT, type ContractCase } from '../../../test-support/contract-case.js';

/** Ollama: chat on its OpenAI-compatible path, embeddings on its native `/api/embed`. */
export const contractCases: readonly ContractCase[] = [
  {
    slug: 'ollama',
    fake: 'ollama',
    startFake: () => startFakeOllama({ models: ['llama3.2', 'nomic-embed-text'] }),
    hop: { passthrough: true },
    model: 'llama3.2',
    embedModel: 'nomic-embed-text',
    text: OPENAI_FAKE_TEXT,
    chat: { path: '/v1/chat/completions' },
    stream: { asksUsage: true },
    embeddings: { path: '/api/embed' },
  },
];
