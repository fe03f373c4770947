/**
 * How long a cached token, user or channel may live while this node may be missing invalidations
 * (its Redis subscriber is down): edits made meanwhile on another node take effect here within this.
 */
export const SHORT_TTL_MS = 5_000;
