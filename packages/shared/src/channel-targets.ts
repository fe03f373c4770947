/**
 * Where a channel's requests go (docs/security.md, "Channel targets"), defined once for the server's
 * save rules, the adapters' request-time checks and the console's form: the base URL, the proxy in
 * `setting`, and the `other` values each type places in its upstream URL. Enumerated from the
 * adapters (packages/server/src/relay/adapters/*): Vertex puts its region in the host
 * (`https://{region}-aiplatform.googleapis.com`), Cloudflare its account id in the path, Azure its
 * API version in the query, Spark and Gemini their version in the path. Ali's `other` (a plugin
 * header) and AI Proxy Library's (a knowledge base id in the body) go nowhere near a URL.
 *
 * A value placed in a URL can never carry `/ ? # @ :` or `%`: it cannot change the host or leave
 * its path segment. Key-borne parts are checked with the key (`channelKeyProblem`): Bedrock's
 * region, Cloudflare's `accountId|token`, a Vertex key's project_id.
 */
import { ChannelType, channelTypeInfo } from './channel-types.js';

/** The refusal of each rule: a server message code (messages.ts), zh and en. */
export type ChannelTargetProblem =
  | 'CHANNEL_TARGET_BASE_URL'
  | 'CHANNEL_TARGET_PROXY'
  | 'CHANNEL_TARGET_VERTEX_REGION'
  | 'CHANNEL_TARGET_CLOUDFLARE_ACCOUNT'
  | 'CHANNEL_TARGET_AZURE_VERSION'
  | 'CHANNEL_TARGET_SPARK_VERSION'
  | 'CHANNEL_TARGET_GEMINI_VERSION';

/** A region name: it becomes the first DNS label of the Vertex host (`{region}-aiplatform`), so 50 characters at most. */
const VERTEX_REGION = /^[a-z0-9-]{1,50}$/;
/** Cloudflare account ids are 32 hexadecimal characters (the dashboard's Account ID). */
const CLOUDFLARE_ACCOUNT = /^[0-9a-f]{32}$/i;
/** Azure api-version (`2024-10-21`, `2025-01-01-preview`) and Spark versions (`v3.5`, `pro-128k`, `4.0Ultra`). */
const VERSION_NAME = /^[a-z0-9][a-z0-9.-]{0,39}$/i;
/** Gemini API versions: `v1`, `v1beta`, `v1alpha`, `v1beta2`. The adapter serves v1beta for anything else. */
export const GEMINI_VERSION = /^v\d+(beta\d*|alpha\d*)?$/;

export function isVertexRegion(region: string): boolean {
  return VERTEX_REGION.test(region);
}

export function isCloudflareAccountId(id: string): boolean {
  return CLOUDFLARE_ACCOUNT.test(id);
}

export function isVersionName(v: string): boolean {
  return VERSION_NAME.test(v);
}

/**
 * A Vertex channel's `other`: empty (us-central1), one region, or a JSON object mapping models to
 * regions that names the `default` one (the reference's rule); every region a region name.
 */
export function isVertexRegionSetting(other: string): boolean {
  const o = other.trim();
  if (!o) return true;
  if (!o.startsWith('{')) return isVertexRegion(o);
  let map: unknown;
  try {
    map = JSON.parse(o);
  } catch {
    return false;
  }
  if (!map || typeof map !== 'object' || Array.isArray(map) || !('default' in map)) return false;
  return Object.values(map).every((r) => typeof r === 'string' && isVertexRegion(r.trim()));
}

/** Types whose `other` is placed in the upstream URL, with its rule (an empty value means the type's default). */
const OTHER_RULES: Partial<Record<number, { problem: ChannelTargetProblem; valid(v: string): boolean }>> = {
  [ChannelType.VertexAI]: { problem: 'CHANNEL_TARGET_VERTEX_REGION', valid: isVertexRegionSetting },
  [ChannelType.Cloudflare]: { problem: 'CHANNEL_TARGET_CLOUDFLARE_ACCOUNT', valid: (v) => !v || isCloudflareAccountId(v) },
  [ChannelType.Azure]: { problem: 'CHANNEL_TARGET_AZURE_VERSION', valid: (v) => !v || isVersionName(v) },
  [ChannelType.Xunfei]: { problem: 'CHANNEL_TARGET_SPARK_VERSION', valid: (v) => !v || isVersionName(v) },
  [ChannelType.Gemini]: { problem: 'CHANNEL_TARGET_GEMINI_VERSION', valid: (v) => !v || GEMINI_VERSION.test(v) },
};

/** Whether a type's `other` decides where its requests go. */
export function otherIsTarget(type: number): boolean {
  return OTHER_RULES[type] !== undefined;
}

/** Schemes a base URL may have: iFlytek Spark is dialled over WebSocket, everything else over HTTP (Realtime dials ws(s) from an http(s) base). */
export function baseUrlSchemes(type: number): readonly string[] {
  return type === ChannelType.Xunfei ? ['http:', 'https:', 'ws:', 'wss:'] : ['http:', 'https:'];
}

const PROXY_SCHEMES = ['http:', 'https:', 'socks5:', 'socks5h:'];
/** A host as the URL parser leaves it: a DNS name (internationalised ones come out in punycode) or a bracketed IPv6 literal. */
const HOST = /^([a-z0-9_-]+\.)*[a-z0-9_-]+\.?$|^\[[0-9a-f:.]+\]$/i;

/** An absolute URL with one of `schemes` and a host; `credentials` says whether a user name or password may ride in it. */
function isNetworkUrl(raw: string, schemes: readonly string[], credentials: boolean): boolean {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return false;
  }
  if (!schemes.includes(url.protocol) || !HOST.test(url.hostname)) return false;
  return credentials || (!url.username && !url.password);
}

/** The reference's per-channel proxy (`setting.proxy`), trimmed; '' when the setting has none or is not JSON. */
export function channelProxy(setting: string | null | undefined): string {
  try {
    const v = (JSON.parse(setting || '{}') as { proxy?: unknown }).proxy;
    return typeof v === 'string' ? v.trim().replace(/\/+$/, '') : '';
  } catch {
    return '';
  }
}

/** The target columns of a channel as stored (or about to be). */
export interface ChannelTargetFields {
  base_url?: string | null;
  other?: string | null;
  setting?: string | null;
}

/**
 * The first target rule `fields` break for a channel of `type`, or undefined. A base URL is an
 * absolute http(s) URL with a host name and no credentials (a Custom URL's `{model}` may sit in its
 * path, never in its host: the caller's model must not choose the host); a proxy is http(s) or socks5.
 */
export function channelTargetProblem(type: number, fields: ChannelTargetFields): ChannelTargetProblem | undefined {
  const base = (fields.base_url ?? '').trim();
  if (base && !isNetworkUrl(base, baseUrlSchemes(type), false)) return 'CHANNEL_TARGET_BASE_URL';
  const proxy = channelProxy(fields.setting);
  if (proxy && !isNetworkUrl(proxy, PROXY_SCHEMES, true)) return 'CHANNEL_TARGET_PROXY';
  const rule = OTHER_RULES[type];
  if (rule && !rule.valid((fields.other ?? '').trim())) return rule.problem;
  return undefined;
}

/**
 * What decides where a channel's requests go, normalised for comparison: two values are the same
 * target when these are equal (a trailing slash or surrounding space is no move; an `other` the
 * type does not place in a URL is no part of it; an empty one is the type's default, which a save fills in).
 */
export function channelTargetKey(type: number, fields: ChannelTargetFields): string {
  const other = otherIsTarget(type) ? (fields.other ?? '').trim() || (channelTypeInfo(type)?.defaultOther ?? '') : '';
  return JSON.stringify([type, (fields.base_url ?? '').trim().replace(/\/+$/, ''), channelProxy(fields.setting), other]);
}
