import { OpenAIWireAdapter } from '../openai-base.js';

/**
 * Ollama (type 4) through its OpenAI-compatible surface (`/v1/chat/completions`, `/v1/completions`,
 * `/v1/embeddings`). Ollama needs no key; one is sent only when the channel has one (a proxy in
 * front may want it).
 */
class OllamaAdapter extends OpenAIWireAdapter {
  constructor() {
    super({
      slug: 'ollama',
      types: [4],
      modes: ['chat', 'completions', 'embeddings'],
      streamOptions: true,
      models: ['llama3.1', 'llama3.2', 'qwen2.5', 'mistral', 'gemma2'],
    });
  }
}

export const adapter = new OllamaAdapter();
