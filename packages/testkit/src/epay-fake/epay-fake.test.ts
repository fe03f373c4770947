import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startFakeEpay } from './server.js';
import type { FakeEpay } from './types.js';

/** A merchant's notify endpoint: records what arrived and checks the signature the way a merchant would. */
let merchant: Server;
let merchantUrl = '';
const received: Array<{ method: string; fields: Record<string, string> }> = [];

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** The merchant side's form, signed by hand (sorted, without sign/sign_type/empty values, key appended). */
function merchantForm(fields: Record<string, string>, key: string): Record<string, string> {
  const text = Object.keys(fields).filter((k) => fields[k] !== '').sort().map((k) => `${k}=${fields[k]}`).join('&');
  return { ...fields, sign: md5(text + key), sign_type: 'MD5' };
}

let fake: FakeEpay;

beforeAll(async () => {
  merchant = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url!, 'http://x');
      const fields = { ...Object.fromEntries(url.searchParams), ...Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString())) };
      received.push({ method: req.method!, fields });
      const { sign, sign_type: _t, ...rest } = fields;
      res.end(sign === merchantForm(rest, 'k1').sign ? 'success' : 'fail');
    });
  });
  await new Promise<void>((r) => merchant.listen(0, '127.0.0.1', r));
  merchantUrl = `http://127.0.0.1:${(merchant.address() as AddressInfo).port}`;
  fake = await startFakeEpay({ pid: '77', key: 'k1' });
});
afterAll(async () => {
  await fake?.close();
  await new Promise((r) => merchant.close(r));
});
beforeEach(() => {
  fake.reset();
  received.length = 0;
});

const order = (no: string, money = '7.30') =>
  merchantForm({ pid: '77', type: 'alipay', out_trade_no: no, notify_url: `${merchantUrl}/notify`, return_url: `${merchantUrl}/topup`, name: 'TUC1', money, device: 'pc' }, 'k1');

describe('fake Epay gateway', () => {
  it('shows a cashier page for a correctly signed form and refuses a wrong signature or merchant', async () => {
    const page = await fetch(fake.submitUrl, { method: 'POST', body: new URLSearchParams(order('A1')) });
    expect(page.status).toBe(200);
    const html = await page.text();
    expect(html).toContain('¥7.30');
    expect(html).toContain('A1');
    expect(fake.orders.map((o) => o.outTradeNo)).toEqual(['A1']);

    const forged = await fetch(`${fake.submitUrl}?${new URLSearchParams({ ...order('A2'), money: '0.01' })}`);
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('signature mismatch');
    const other = await fetch(fake.submitUrl, { method: 'POST', body: new URLSearchParams(merchantForm({ ...order('A3'), pid: '78' }, 'k1')) });
    expect(other.status).toBe(400);
    expect(fake.orders).toHaveLength(1);
  });

  it('pays from the cashier page: a signed GET notification, then the browser goes back to return_url', async () => {
    await fetch(fake.submitUrl, { method: 'POST', body: new URLSearchParams(order('B1')) });
    const paid = await fetch(`${fake.url}/__fake/pay`, { method: 'POST', body: new URLSearchParams({ out_trade_no: 'B1' }), redirect: 'manual' });
    expect(paid.status).toBe(302);
    const back = new URL(paid.headers.get('location')!);
    expect(`${back.origin}${back.pathname}`).toBe(`${merchantUrl}/topup`);
    expect(back.searchParams.get('out_trade_no')).toBe('B1');
    expect(received).toHaveLength(1);
    expect(received[0]).toMatchObject({ method: 'GET', fields: { pid: '77', out_trade_no: 'B1', money: '7.30', trade_status: 'TRADE_SUCCESS', type: 'alipay', sign_type: 'MD5' } });
    expect(fake.notifications).toEqual([expect.objectContaining({ status: 200, body: 'success' })]);
    expect(fake.orders[0]!.status).toBe('paid');
  });

  it('replays, races, forges, changes the amount and posts forms on demand', async () => {
    fake.submit(order('C1'));
    const replays = await fake.notify('C1', { times: 3 });
    expect(replays.map((r) => r.body)).toEqual(['success', 'success', 'success']);
    const raced = await fake.notify('C1', { times: 4, concurrent: true, method: 'POST' });
    expect(raced.every((r) => r.body === 'success')).toBe(true);
    expect(received.slice(3).every((r) => r.method === 'POST')).toBe(true);
    expect((await fake.notify('C1', { forgeSignature: true }))[0]!.body).toBe('fail');
    const cheaper = await fake.notify('C1', { money: '0.01' });
    expect(cheaper[0]!.params.money).toBe('0.01');
    expect(cheaper[0]!.body).toBe('success');
    const over = await fetch(`${fake.url}/__fake/notify`, { method: 'POST', body: new URLSearchParams({ out_trade_no: 'C1', times: '2' }) });
    expect(((await over.json()) as unknown[]).length).toBe(2);
    expect(received).toHaveLength(11);
  });

  it('reports an unreachable merchant instead of throwing', async () => {
    fake.submit(order('D1'));
    const [r] = await fake.notify('D1', { url: 'http://127.0.0.1:1/notify' });
    expect(r!.status).toBe(0);
    expect(r!.body).not.toBe('');
  });
});
