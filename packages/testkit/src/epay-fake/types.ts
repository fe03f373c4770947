/** Options of the fake Epay ("易支付") gateway. */
export interface FakeEpayOptions {
  /** Merchant id the gateway accepts (`pid`); default `1001`. */
  pid?: string;
  /** Merchant key both sides sign with; default `fake-epay-key`. */
  key?: string;
  port?: number;
  host?: string;
}

/** An order the gateway accepted from a merchant's signed `submit.php` form. */
export interface FakeEpayOrder {
  /** The gateway's own trade number (`trade_no` in notifications). */
  tradeNo: string;
  /** The merchant's trade number (`out_trade_no`). */
  outTradeNo: string;
  /** alipay, wxpay, … */
  type: string;
  name: string;
  /** As the merchant sent it (2 decimals). */
  money: string;
  notifyUrl: string;
  returnUrl: string;
  /** Every field the merchant sent, signature included. */
  params: Record<string, string>;
  status: 'pending' | 'paid';
  createdAt: number;
}

/** How a notification is sent, for replays and attacks. */
export interface NotifyOptions {
  /** Send it this many times (default 1). */
  times?: number;
  /** All at once rather than one after another. */
  concurrent?: boolean;
  /** Sign with a wrong key (a forged notification). */
  forgeSignature?: boolean;
  /** Report this amount instead of the order's (signed correctly). */
  money?: string;
  /** Report this trade status instead of TRADE_SUCCESS. */
  tradeStatus?: string;
  /** Report this merchant trade number instead (signed correctly): an order the merchant never made. */
  outTradeNo?: string;
  /** GET with a query string (default, like the reference's gateway library) or POST with a form. */
  method?: 'GET' | 'POST';
  /** Send to this URL instead of the order's notify_url (another node of the merchant). */
  url?: string;
}

/** What one notification got back from the merchant. */
export interface NotifyResult {
  url: string;
  params: Record<string, string>;
  status: number;
  /** The merchant's plain-text answer (`success` or `fail`), or the error when unreachable. */
  body: string;
}

export interface FakeEpay {
  /** Base URL, the merchant's PayAddress. */
  url: string;
  /** `${url}/submit.php`. */
  submitUrl: string;
  port: number;
  pid: string;
  key: string;
  orders: FakeEpayOrder[];
  /** Every notification sent, oldest first. */
  notifications: NotifyResult[];
  /** Accepts a merchant form as `submit.php` does; throws when the signature or the fields are wrong. */
  submit(params: Record<string, string>): FakeEpayOrder;
  /** The user pays: the order is marked paid and one signed TRADE_SUCCESS notification is sent. */
  pay(outTradeNo: string): Promise<NotifyResult>;
  /** Sends (again) the signed notification of an order, as `opts` says. */
  notify(outTradeNo: string, opts?: NotifyOptions): Promise<NotifyResult[]>;
  /** The signed query the browser is sent back to `return_url` with. */
  returnUrl(outTradeNo: string): string;
  reset(): void;
  close(): Promise<void>;
}
