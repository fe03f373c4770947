import type { IncomingMessage } from 'node:http';
import { type ListeningFake, readJsonBody, serveFake } from '../http-fake.js';
import { VendorError } from './shared.js';
import { VENDORS, type VendorName, type VendorState } from './vendors.js';

export const FAKE_VENDOR_KEY = 'sk-fakevendor0123456789abcdef';
/** A Qianfan v2 API key as Baidu's console issues them (`bce-v3/ALTAK-…/…`). */
export const FAKE_QIANFAN_V2_KEY = 'bce-v3/ALTAK-fakeQianfanKey01/0123456789abcdef0123456789abcdef01234567';

export interface VendorRecordedRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: unknown;
  rejected?: { status: number; body: Record<string, unknown> };
}

export interface FakeVendor extends ListeningFake {
  vendor: VendorName;
  requests: VendorRecordedRequest[];
  /** MiniMax: the next replies carry this `base_resp` failure (null heals). */
  setBaseResp(f: VendorState['baseResp']): void;
  /** DeepSeek: prompt tokens served from the cache. */
  setCacheHit(tokens: number, legacy?: boolean): void;
  setBalance(amount: number, currency?: 'CNY' | 'USD'): void;
}

/**
 * One OpenAI-compatible vendor on loopback, with that vendor's documented differences
 * (providers-china-and-tasks §6): MiniMax's v2 path and HTTP-200 `base_resp` failures, Moonshot's
 * usage inside the final choice and its balance, DeepSeek's reasoning stream, cache fields and
 * balance, FastGPT's named `detail` events, Qianfan v2's `/v2` API with `bce-v3/` keys. Bearer keys
 * are checked; errors come in the vendor's own shape.
 */
export async function startFakeVendor(vendor: VendorName, opts: { port?: number; host?: string; apiKeys?: string[] } = {}): Promise<FakeVendor> {
  const requests: VendorRecordedRequest[] = [];
  const state: VendorState = {
    keys: opts.apiKeys ?? [vendor === 'qianfan' ? FAKE_QIANFAN_V2_KEY : FAKE_VENDOR_KEY],
    baseResp: null,
    cacheHit: { tokens: 0 },
    balance: { amount: 100, currency: 'CNY' },
  };
  const listening = await serveFake(
    opts,
    async (req, res) => {
      const path = (req.url ?? '/').split('?')[0]!;
      const { body } = await readJsonBody(req);
      const record: VendorRecordedRequest = { method: req.method ?? 'GET', path, headers: req.headers, body };
      requests.push(record);
      try {
        VENDORS[vendor]({ req, res, path, body, state });
      } catch (err) {
        if (!(err instanceof VendorError)) throw err;
        record.rejected = { status: err.status, body: err.body };
        res.writeHead(err.status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(err.body));
      }
    },
    (res, err) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `Fake upstream bug: ${String(err)}`, type: 'server_error' } }));
    },
  );
  return {
    ...listening,
    vendor,
    requests,
    setBaseResp: (f) => {
      state.baseResp = f;
    },
    setCacheHit: (tokens, legacy) => {
      state.cacheHit = { tokens, legacy };
    },
    setBalance: (amount, currency = 'CNY') => {
      state.balance = { amount, currency };
    },
  };
}
