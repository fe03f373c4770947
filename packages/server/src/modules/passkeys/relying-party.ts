import type { FastifyRequest } from 'fastify';
import type { OptionsService } from '../options/options.service.js';

/** Who the passkeys are for: the WebAuthn relying party id (a host name) and the origin the browser must report. */
export interface RelyingParty {
  id: string;
  origin: string;
  /** Shown by the authenticator while registering (SystemName). */
  name: string;
}

function httpUrl(raw: string): URL | undefined {
  try {
    const u = new URL(raw.trim());
    return u.protocol === 'http:' || u.protocol === 'https:' ? u : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The relying party from the server address option (ServerAddress: its host is the RP id, its
 * origin the expected one), else from the request's own host, as the OAuth redirect URIs fall back
 * (behind a proxy that forwards the Host header, that is the site's name). Passkeys are bound to
 * the RP id: set ServerAddress in production so they keep working whatever host a request names.
 */
export function relyingParty(options: Pick<OptionsService, 'str'>, req: Pick<FastifyRequest, 'protocol' | 'host' | 'hostname'>): RelyingParty {
  const name = options.str('SystemName') || 'ModelGate';
  const configured = httpUrl(options.str('ServerAddress'));
  if (configured) return { id: configured.hostname, origin: configured.origin, name };
  return { id: req.hostname, origin: `${req.protocol}://${req.host}`, name };
}
