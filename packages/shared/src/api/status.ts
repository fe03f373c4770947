import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse } from './envelope.js';

/** `{"Name": "url with {key} and {address}"}`: one chat link per entry (console-api.md §6, G2). */
export const chatEntry = z.record(z.string(), z.string());

/** The public status object (console-api.md §6): every field present, `chats` always an array. */
export const siteStatus = z
  .object({
    version: z.string(),
    start_time: z.number().int(),
    system_name: z.string(),
    logo: z.string(),
    footer_html: z.string(),
    server_address: z.string(),
    email_verification: z.boolean(),
    github_oauth: z.boolean(),
    github_client_id: z.string(),
    linuxdo_oauth: z.boolean(),
    linuxdo_client_id: z.string(),
    telegram_oauth: z.boolean(),
    telegram_bot_name: z.string(),
    /** Generic OpenID Connect sign-in (OIDCEnabled, OIDCClientId). */
    oidc_enabled: z.boolean(),
    oidc_client_id: z.string(),
    /** Discord sign-in (DiscordOAuthEnabled, DiscordClientId). */
    discord_oauth: z.boolean(),
    discord_client_id: z.string(),
    wechat_qrcode: z.string(),
    wechat_login: z.boolean(),
    turnstile_check: z.boolean(),
    turnstile_site_key: z.string(),
    price: z.number(),
    min_topup: z.number(),
    top_up_link: z.string(),
    enable_online_topup: z.boolean(),
    /** Stripe Checkout top-up: on, price per display unit, currency, minimum and the offered amounts. */
    enable_stripe_topup: z.boolean(),
    stripe_unit_price: z.number(),
    stripe_currency: z.string(),
    stripe_min_topup: z.number(),
    stripe_amount_options: z.array(z.number()),
    quota_per_unit: z.number(),
    display_in_currency: z.boolean(),
    /** DisplayTokenStatEnabled: show token totals in the usage log. */
    display_token_stat: z.boolean(),
    chat_link: z.string(),
    chat_link2: z.string(),
    chats: z.array(chatEntry),
    enable_batch_update: z.boolean(),
    enable_drawing: z.boolean(),
    enable_task: z.boolean(),
    enable_data_export: z.boolean(),
    data_export_default_time: z.string(),
    default_collapse_sidebar: z.boolean(),
    mj_notify_enabled: z.boolean(),
  })
  .meta({ id: 'SiteStatus' });
export type SiteStatus = z.infer<typeof siteStatus>;
export type ChatEntry = z.infer<typeof chatEntry>;

/** Markdown, HTML or an https URL; a string, never null (the console calls `data.startsWith`). */
const content = z.string();

export const statusRoutes = resource('status', {
  'GET /api/status': { auth: 'public', summary: 'Public site status (copied into the console’s localStorage)', response: apiResponse(siteStatus) },
  'GET /api/status/test': {
    auth: 'admin',
    summary: 'Checks the database answers; data is the round trip in milliseconds',
    response: apiResponse(z.object({ database_ms: z.number() })),
  },
  'GET /api/notice': { auth: 'public', summary: 'The notice (markdown)', response: apiResponse(content) },
  'GET /api/about': { auth: 'public', summary: 'The about page (markdown or an https URL)', response: apiResponse(content) },
  'GET /api/openapi.json': {
    auth: 'public',
    summary: 'This OpenAPI 3.1 document (cacheable: ETag, max-age)',
    response: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
  },
  'GET /api/home_page_content': { auth: 'public', summary: 'The home page (markdown or an https URL)', response: apiResponse(content) },
});
