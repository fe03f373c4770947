/**
 * Messages of periodic limits and plans (issue 32), part of the server's catalogue (messages.ts
 * `SERVER_MESSAGES`). `{name}` placeholders are filled by the caller (`fillMessage`).
 */
export const PLAN_MESSAGES = {
  // A relay refusal: the first window reached (docs/ledger.md "Windows and plans").
  RELAY_USER_PERIOD_LIMITED: { zh: '您的{window}{unit}上限（{limit}）已用完，将于 {refill} 恢复', en: 'You have used up your {window} {unit} limit ({limit}); it refills at {refill}' },
  RELAY_TOKEN_PERIOD_LIMITED: { zh: '该令牌的{window}{unit}上限（{limit}）已用完，将于 {refill} 恢复', en: 'This token has used up its {window} {unit} limit ({limit}); it refills at {refill}' },
  RELAY_PLAN_PERIOD_LIMITED: { zh: '套餐「{plan}」的{window}{unit}额度（{limit}）已用完，将于 {refill} 恢复', en: 'Plan "{plan}" has used up its {window} {unit} allowance ({limit}); it refills at {refill}' },
  PERIOD_WINDOW_5H: { zh: '5 小时', en: '5-hour' },
  PERIOD_WINDOW_DAY: { zh: '每日', en: 'daily' },
  PERIOD_WINDOW_WEEK: { zh: '每周', en: 'weekly' },
  PERIOD_WINDOW_MONTH: { zh: '每月', en: 'monthly' },
  PERIOD_UNIT_QUOTA: { zh: '额度', en: 'quota' },
  PERIOD_UNIT_REQUESTS: { zh: '请求次数', en: 'request' },
  PERIOD_LIMITS_INVALID: {
    zh: '周期限额无效：窗口只能是 5h、day、week、month，上限为非负整数（quota 为额度，requests 为请求次数）',
    en: 'Invalid periodic limits: windows are 5h, day, week and month; caps are non-negative integers (quota and requests)',
  },
  OPTION_TIME_ZONE_INVALID: { zh: '时区无效，请填写 IANA 时区名称，例如 Asia/Shanghai 或 UTC', en: 'Unknown time zone: use an IANA name such as Asia/Shanghai or UTC' },
  PLAN_NOT_FOUND: { zh: '套餐不存在', en: 'Plan not found' },
  PLAN_NOT_FOR_SALE: { zh: '该套餐已停售', en: 'This plan is not on sale' },
  PLAN_NAME_REQUIRED: { zh: '请填写套餐名称', en: 'A plan needs a name' },
  PLAN_ALLOWANCE_REQUIRED: { zh: '套餐至少需要一个周期额度（额度或请求次数）', en: 'A plan needs at least one allowance (quota or requests in some window)' },
  PLAN_BALANCE_INSUFFICIENT: { zh: '余额不足：套餐价格 {price}，当前余额 {balance}', en: 'Your balance does not cover this plan: price {price}, balance {balance}' },
  PLAN_SUBSCRIPTION_NOT_FOUND: { zh: '订阅不存在', en: 'Subscription not found' },
  PLAN_SUBSCRIPTION_ENDED: { zh: '该订阅已结束', en: 'This subscription has ended' },
  PLAN_RENEW_UNLIMITED: { zh: '该套餐长期有效，无需续费', en: 'This plan never expires: there is nothing to renew' },
  PLAN_ORDER_INVALID: { zh: '排序须包含您全部生效中的订阅，且每个只出现一次', en: 'The order must list each of your active subscriptions exactly once' },
  PLAN_TOO_MANY: { zh: '同时生效的订阅最多 {max} 个', en: 'At most {max} subscriptions may be active at once' },
  // Paying a plan online (docs/ledger.md "Plans paid online").
  PLAN_PAY_FREE: { zh: '该套餐免费，请直接点击“余额购买”', en: 'This plan is free: buy it with your balance' },
  PLAN_PAY_DISABLED: { zh: '管理员未开启在线支付', en: 'No online payment method is enabled by the administrator' },
  // Why a paid plan order bought no plan (top_ups.plan_error); the payment stays in the balance.
  PLAN_PAID_PLAN_GONE: { zh: '套餐已被删除', en: 'the plan no longer exists' },
  PLAN_PAID_OFF_SALE: { zh: '套餐已停售', en: 'the plan is no longer on sale' },
  PLAN_PAID_PRICE_RAISED: { zh: '下单后套餐涨价了', en: 'the plan costs more than when you ordered it' },
  PLAN_PAID_TOO_MANY: { zh: '同时生效的订阅已达上限', en: 'you already hold the most plans allowed at once' },
} as const satisfies Record<string, { zh: string; en: string }>;
