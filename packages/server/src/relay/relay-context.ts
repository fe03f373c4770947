import type { AppContext } from '../context.js';

/**
 * What the relay pipeline reads from the application context (docs/architecture.md#dependencies):
 * its own services (caches, ledger, upstream pool), options, the database, the configuration and
 * the rate-limit store. Nothing else reaches a relayed request.
 */
export type RelayContext = Pick<AppContext, 'config' | 'db' | 'options' | 'relay' | 'rateLimitStore'>;
