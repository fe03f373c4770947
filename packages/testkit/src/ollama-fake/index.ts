export { FAKE_OLLAMA_MODELS, ollamaEmbedding, ollamaEmbedTokens, startFakeOllama, type FakeOllama, type FakeOllamaOptions, type OllamaRecordedRequest } from './server.js';
