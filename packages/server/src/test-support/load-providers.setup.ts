import { loadProviders } from '../relay/adapters/registry.js';

/**
 * Vitest setup file (vitest.config.ts `setupFiles`): the provider folders register their adapters
 * and formats before any test file runs, as main.ts does before the server listens, so a unit test
 * that converts or looks up an adapter needs no boot of its own.
 */
await loadProviders();
