import { setOutboundResolver, type Resolver } from '../net/guarded-fetch.js';

/** A resolver that answers the listed names with their addresses and every other name as not found. */
export function fakeDns(answers: Readonly<Record<string, readonly string[]>>): Resolver {
  return async (name) => {
    const found = answers[name];
    if (!found) throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

/** Runs `fn` while the guarded client's lookups get these answers, then gives lookups back to the system. */
export async function whileResolving<T>(answers: Readonly<Record<string, readonly string[]>>, fn: () => Promise<T>): Promise<T> {
  setOutboundResolver(fakeDns(answers));
  try {
    return await fn();
  } finally {
    setOutboundResolver(undefined);
  }
}
