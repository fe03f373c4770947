export * from './openai-fake/index.js';
