import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { RelayAuth } from './token-auth.js';

const authOf = new WeakMap<FastifyRequest, RelayAuth>();

/**
 * Checks the caller's API key before the body is read (fastify's preParsing step), so an anonymous
 * or wrong-key caller cannot make the server take in a body of up to the relay's limit. A refusal
 * is thrown to the scope's error handler, which answers it in the scope's envelope. `skip` names
 * the scope's public routes (the Midjourney image proxy).
 */
export function authenticateBeforeBody(scope: FastifyInstance, authenticate: (req: FastifyRequest) => Promise<RelayAuth>, skip: (req: FastifyRequest) => boolean = () => false): void {
  scope.addHook('preParsing', async (req, _reply, payload) => {
    if (!skip(req)) authOf.set(req, await authenticate(req));
    return payload;
  });
}

/** The caller authenticated by `authenticateBeforeBody`. */
export function earlyAuth(req: FastifyRequest): RelayAuth {
  const auth = authOf.get(req);
  if (!auth) throw new Error(`no early authentication for ${req.method} ${req.url}`);
  return auth;
}
