import type { FakeEpayOrder } from './types.js';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>${escape(title)}</title>
<style>body{font-family:sans-serif;max-width:28rem;margin:3rem auto;padding:0 1rem}dt{color:#666}dd{margin:0 0 .75rem}button{font-size:1rem;padding:.5rem 1.5rem}</style>
</head><body>${body}</body></html>`;
}

/** The cashier page a real gateway shows after `submit.php`: the order and a button to pay it. */
export function cashierPage(order: FakeEpayOrder): string {
  return page(
    'Fake Epay cashier',
    `<h1>Fake Epay 收银台 / cashier</h1>
<dl><dt>商品 / item</dt><dd data-field="name">${escape(order.name)}</dd>
<dt>金额 / amount</dt><dd data-field="money">¥${escape(order.money)}</dd>
<dt>方式 / method</dt><dd data-field="type">${escape(order.type)}</dd>
<dt>订单号 / order</dt><dd data-field="out_trade_no">${escape(order.outTradeNo)}</dd></dl>
<form method="post" action="/__fake/pay"><input type="hidden" name="out_trade_no" value="${escape(order.outTradeNo)}">
<button type="submit">确认支付 / Pay</button></form>`,
  );
}

/** What `submit.php` answers a form it refuses (the reference gateways show a plain error page). */
export function errorPage(message: string): string {
  return page('Fake Epay error', `<h1>支付失败 / payment refused</h1><p data-field="error">${escape(message)}</p>`);
}
