import type { Channel, LogEntry, Plan, Redemption, SelfUser, SiteStatus, Subscription, Token, TopUpOrder, User } from '@modelgate/shared/api';

/**
 * Test data of the server's exact shapes (types from the shared contracts; mock-api.ts also checks
 * them at run time): each factory gives a complete record, a test overrides what it is about.
 */

export const DEFAULT_STATUS: SiteStatus = {
  version: 'v0.1.0-test',
  start_time: 1700000000,
  system_name: 'ModelGate',
  logo: '',
  footer_html: '',
  server_address: 'http://localhost:3000',
  email_verification: false,
  github_oauth: false,
  github_client_id: '',
  linuxdo_oauth: false,
  linuxdo_client_id: '',
  telegram_oauth: false,
  telegram_bot_name: '',
  oidc_enabled: false,
  oidc_client_id: '',
  discord_oauth: false,
  discord_client_id: '',
  wechat_qrcode: '',
  wechat_login: false,
  turnstile_check: false,
  turnstile_site_key: '',
  price: 7.3,
  min_topup: 1,
  top_up_link: '',
  enable_online_topup: false,
  enable_stripe_topup: false,
  stripe_unit_price: 1,
  stripe_currency: 'usd',
  stripe_min_topup: 1,
  stripe_amount_options: [10, 20, 50, 100],
  quota_per_unit: 500000,
  display_in_currency: true,
  display_token_stat: true,
  chat_link: '',
  chat_link2: '',
  chats: [],
  enable_batch_update: false,
  enable_drawing: false,
  enable_task: false,
  enable_data_export: false,
  data_export_default_time: 'hour',
  default_collapse_sidebar: false,
  mj_notify_enabled: false,
};

export function aToken(id: number, overrides: Partial<Token> = {}): Token {
  return {
    id,
    user_id: 1,
    name: `token-${id}`,
    key: `key${String(id).padStart(45, '0')}`,
    status: 1,
    remain_quota: 500000,
    unlimited_quota: false,
    used_quota: 0,
    created_time: 1700000000,
    accessed_time: 1700000000,
    expired_time: -1,
    model_limits_enabled: false,
    model_limits: '',
    allow_ips: '',
    group: '',
    rpm_limit: 0,
    tpm_limit: 0,
    period_limits: {},
    ...overrides,
  };
}

export function aChannel(id: number, overrides: Partial<Channel> = {}): Channel {
  return {
    id,
    name: `channel-${id}`,
    type: 1,
    status: 1,
    key: '',
    openai_organization: '',
    test_model: '',
    base_url: '',
    other: '',
    models: 'gpt-4o,gpt-4o-mini',
    group: 'default',
    model_mapping: '',
    status_code_mapping: '',
    setting: '',
    tag: '',
    priority: 0,
    weight: 0,
    auto_ban: 1,
    response_time: 0,
    test_time: 0,
    balance: 0,
    balance_updated_time: 0,
    used_quota: 0,
    created_time: 1700000000,
    other_info: '',
    max_input_tokens: 0,
    ...overrides,
  };
}

export function aUser(id: number, overrides: Partial<User> = {}): User {
  return {
    id,
    username: `user${id}`,
    display_name: `User ${id}`,
    role: 1,
    status: 1,
    email: '',
    github_id: '',
    wechat_id: '',
    telegram_id: '',
    linux_do_id: '',
    oidc_id: '',
    discord_id: '',
    group: 'default',
    quota: 0,
    used_quota: 0,
    request_count: 0,
    aff_code: '',
    aff_count: 0,
    aff_quota: 0,
    aff_history_quota: 0,
    inviter_id: 0,
    created_at: 1700000000,
    DeletedAt: null,
    concurrency_limit: 0,
    period_limits: {},
    ...overrides,
  };
}

export function aSelfUser(id: number, overrides: Partial<SelfUser> = {}): SelfUser {
  return { ...aUser(id), access_token: '', windows: [], ...overrides };
}

export function aLogEntry(id: number, overrides: Partial<LogEntry> = {}): LogEntry {
  return {
    id,
    user_id: 1,
    created_at: 1700000000,
    type: 2,
    content: '',
    username: 'alice',
    token_name: 'default',
    model_name: 'gpt-4o',
    quota: 0,
    prompt_tokens: 0,
    completion_tokens: 0,
    use_time: 0,
    is_stream: false,
    channel: 1,
    token_id: 1,
    group: 'default',
    other: '{}',
    ...overrides,
  };
}

export function aRedemption(id: number, overrides: Partial<Redemption> = {}): Redemption {
  return {
    id,
    user_id: 1,
    key: id.toString(16).padStart(32, 'a'),
    status: 1,
    name: `code-${id}`,
    quota: 100000,
    created_time: 1700000000,
    redeemed_time: 0,
    used_user_id: 0,
    used_username: '',
    ...overrides,
  };
}

export function aTopUpOrder(id: number, overrides: Partial<TopUpOrder> = {}): TopUpOrder {
  return {
    id,
    user_id: 2,
    username: 'alice',
    amount: 10,
    quota: 5000000,
    money: 73,
    trade_no: `USR2NOabcdef${1700000000 + id}`,
    payment_method: 'alipay',
    create_time: 1700000000,
    complete_time: 0,
    status: 'pending',
    note: '',
    plan_id: 0,
    subscription_id: 0,
    plan_error: '',
    ...overrides,
  };
}

export function aSubscription(id: number, overrides: Partial<Subscription> = {}): Subscription {
  return {
    id,
    user_id: 2,
    plan_id: 1,
    name: `sub-${id}`,
    allowances: { day: { quota: 0, requests: 10 } },
    models: '',
    groups: '',
    fall_through: false,
    price: 1_000_000,
    duration_days: 7,
    status: 1,
    auto_renew: false,
    priority: id,
    starts_at: 1700000000,
    expires_at: 1900000000,
    renewals: 0,
    granted_by: 0,
    created_at: 1700000000,
    ended_at: 0,
    meters: [{ scope: 'plan', id, name: `sub-${id}`, window: 'day', quota_limit: 0, quota_used: 0, requests_limit: 10, requests_used: 4, refill_at: 1800000000 }],
    ...overrides,
  };
}

export function aPlan(id: number, overrides: Partial<Plan> = {}): Plan {
  return {
    id,
    name: `plan-${id}`,
    description: '',
    price: 5_000_000,
    duration_days: 30,
    allowances: { day: { quota: 500_000, requests: 0 }, '5h': { quota: 0, requests: 20 } },
    models: '',
    groups: '',
    fall_through: true,
    status: 1,
    created_at: 1700000000,
    active_subscriptions: 0,
    ...overrides,
  };
}
