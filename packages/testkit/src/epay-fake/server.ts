import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { readFields } from '../http-fake.js';
import { cashierPage, errorPage } from './pages.js';
import { epayMd5, signFields } from './sign.js';
import type { FakeEpay, FakeEpayOptions, FakeEpayOrder, NotifyOptions, NotifyResult } from './types.js';

const REQUIRED = ['pid', 'type', 'out_trade_no', 'notify_url', 'return_url', 'name', 'money'] as const;



function send(res: ServerResponse, status: number, type: string, body: string, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': type, ...headers }).end(body);
}

/**
 * A loopback Epay gateway: `submit.php` checks the merchant's signed form and shows a cashier page;
 * paying sends the signed notification to `notify_url` (a GET with a query string, like the
 * gateway library the reference uses) and sends the browser back to `return_url`. Tests replay
 * notifications, race them, forge their signature or change their amount on demand.
 */
export async function startFakeEpay(opts: FakeEpayOptions = {}): Promise<FakeEpay> {
  const pid = opts.pid ?? '1001';
  const key = opts.key ?? 'fake-epay-key';
  const orders: FakeEpayOrder[] = [];
  const notifications: NotifyResult[] = [];
  const sockets = new Set<Socket>();

  const find = (outTradeNo: string): FakeEpayOrder => {
    const order = orders.find((o) => o.outTradeNo === outTradeNo);
    if (!order) throw new Error(`fake epay: no order ${outTradeNo}`);
    return order;
  };

  const resultFields = (order: FakeEpayOrder, o: NotifyOptions = {}): Record<string, string> => {
    const fields = {
      pid,
      trade_no: order.tradeNo,
      out_trade_no: o.outTradeNo ?? order.outTradeNo,
      type: order.type,
      name: order.name,
      money: o.money ?? order.money,
      trade_status: o.tradeStatus ?? 'TRADE_SUCCESS',
    };
    return signFields(fields, o.forgeSignature ? `${key}-forged` : key);
  };

  async function deliver(url: string, params: Record<string, string>, method: 'GET' | 'POST'): Promise<NotifyResult> {
    let result: NotifyResult;
    try {
      const target = new URL(url);
      let response: Response;
      if (method === 'GET') {
        for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
        response = await fetch(target);
      } else {
        response = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(params).toString() });
      }
      result = { url, params, status: response.status, body: (await response.text()).trim() };
    } catch (err) {
      result = { url, params, status: 0, body: err instanceof Error ? err.message : String(err) };
    }
    notifications.push(result);
    return result;
  }

  const fake: FakeEpay = {
    url: '',
    submitUrl: '',
    port: 0,
    pid,
    key,
    orders,
    notifications,
    submit(params) {
      for (const name of REQUIRED) if (!params[name]) throw new Error(`missing ${name}`);
      if (params.pid !== pid) throw new Error(`unknown merchant ${params.pid}`);
      if ((params.sign ?? '').toLowerCase() !== epayMd5(params, key)) throw new Error('signature mismatch');
      if (!/^\d+(\.\d{1,2})?$/.test(params.money!) || Number(params.money) <= 0) throw new Error(`bad money ${params.money}`);
      const existing = orders.find((o) => o.outTradeNo === params.out_trade_no);
      if (existing) return existing;
      const order: FakeEpayOrder = {
        tradeNo: `${Date.now()}${randomBytes(4).toString('hex')}`,
        outTradeNo: params.out_trade_no!,
        type: params.type!,
        name: params.name!,
        money: params.money!,
        notifyUrl: params.notify_url!,
        returnUrl: params.return_url!,
        params: { ...params },
        status: 'pending',
        createdAt: Date.now(),
      };
      orders.push(order);
      return order;
    },
    async pay(outTradeNo) {
      const order = find(outTradeNo);
      order.status = 'paid';
      return (await fake.notify(outTradeNo))[0]!;
    },
    async notify(outTradeNo, o = {}) {
      const order = find(outTradeNo);
      const params = resultFields(order, o);
      const url = o.url ?? order.notifyUrl;
      const times = o.times ?? 1;
      const method = o.method ?? 'GET';
      if (o.concurrent) return Promise.all(Array.from({ length: times }, () => deliver(url, params, method)));
      const out: NotifyResult[] = [];
      for (let i = 0; i < times; i++) out.push(await deliver(url, params, method));
      return out;
    },
    returnUrl(outTradeNo) {
      const order = find(outTradeNo);
      const target = new URL(order.returnUrl);
      for (const [k, v] of Object.entries(resultFields(order))) target.searchParams.set(k, v);
      return target.toString();
    },
    reset() {
      orders.length = 0;
      notifications.length = 0;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', fake.url || 'http://127.0.0.1');
    const path = url.pathname;
    if (path === '/submit.php' && (req.method === 'GET' || req.method === 'POST')) {
      const fields = await readFields(req, url);
      try {
        send(res, 200, 'text/html; charset=utf-8', cashierPage(fake.submit(fields)));
      } catch (err) {
        send(res, 400, 'text/html; charset=utf-8', errorPage((err as Error).message));
      }
      return;
    }
    if (path === '/__fake/pay' && req.method === 'POST') {
      const fields = await readFields(req, url);
      const order = orders.find((o) => o.outTradeNo === fields.out_trade_no);
      if (!order) return send(res, 404, 'text/html; charset=utf-8', errorPage('no such order'));
      await fake.pay(order.outTradeNo);
      return send(res, 302, 'text/plain; charset=utf-8', '', { location: fake.returnUrl(order.outTradeNo) });
    }
    if (path === '/__fake/notify' && req.method === 'POST') {
      const fields = await readFields(req, url);
      const o: NotifyOptions = {
        times: fields.times ? Number(fields.times) : undefined,
        concurrent: fields.concurrent === 'true',
        forgeSignature: fields.forge === 'true',
        money: fields.money || undefined,
        tradeStatus: fields.trade_status || undefined,
        method: fields.method === 'POST' ? 'POST' : 'GET',
        url: fields.url || undefined,
      };
      return send(res, 200, 'application/json', JSON.stringify(await fake.notify(fields.out_trade_no ?? '', o)));
    }
    if (path === '/__fake/orders' && req.method === 'GET') return send(res, 200, 'application/json', JSON.stringify(orders));
    if (path === '/__fake/notifications' && req.method === 'GET') return send(res, 200, 'application/json', JSON.stringify(notifications));
    send(res, 404, 'text/plain; charset=utf-8', 'not found');
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) send(res, 500, 'text/plain; charset=utf-8', err instanceof Error ? err.message : String(err));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const { port, address } = server.address() as AddressInfo;
  fake.port = port;
  fake.url = `http://${address.includes(':') ? `[${address}]` : address}:${port}`;
  fake.submitUrl = `${fake.url}/submit.php`;
  return fake;
}
