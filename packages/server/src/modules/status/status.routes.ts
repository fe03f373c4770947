import type { Lang } from '@modelgate/shared';
import type { ChatEntry, SiteStatus } from '@modelgate/shared/api';
import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../../context.js';
import { authGuards } from '../../http/auth.js';
import { AppError, requestLang } from '../../http/errors.js';
import { ok } from '../../http/reply.js';
import { routeDeclarer } from '../../http/schema.js';
import { stripeAmountOptions, stripeEnabled } from '../topups/stripe-checkout.js';

/** The part of the application context this file uses. */
type Deps = Pick<AppContext, 'config' | 'db' | 'options' | 'sessions' | 'startTime' | 'users' | 'version'>;

/** The public status object (console-api.md §6): every field, `chats` always an array (the unsaved default in `lang`). */
export function buildStatus(ctx: Deps, lang: Lang = 'zh'): SiteStatus {
  const o = ctx.options;
  const chats = o.jsonFor<unknown>('Chats', lang, []);
  return {
    version: ctx.version,
    start_time: ctx.startTime,
    system_name: o.str('SystemName'),
    logo: o.str('Logo'),
    footer_html: o.str('Footer'),
    server_address: o.str('ServerAddress') || `http://localhost:${ctx.config.port}`,
    email_verification: o.bool('EmailVerificationEnabled'),
    github_oauth: o.bool('GitHubOAuthEnabled'),
    github_client_id: o.str('GitHubClientId'),
    linuxdo_oauth: o.bool('LinuxDOOAuthEnabled'),
    linuxdo_client_id: o.str('LinuxDOClientId'),
    telegram_oauth: o.bool('TelegramOAuthEnabled'),
    telegram_bot_name: o.str('TelegramBotName'),
    oidc_enabled: o.bool('OIDCEnabled'),
    oidc_client_id: o.str('OIDCClientId'),
    discord_oauth: o.bool('DiscordOAuthEnabled'),
    discord_client_id: o.str('DiscordClientId'),
    wechat_qrcode: o.str('WeChatAccountQRCodeImageURL'),
    wechat_login: o.bool('WeChatAuthEnabled'),
    turnstile_check: o.bool('TurnstileCheckEnabled'),
    turnstile_site_key: o.str('TurnstileSiteKey'),
    price: o.num('Price'),
    min_topup: o.num('MinTopUp'),
    top_up_link: o.str('TopUpLink'),
    enable_online_topup: o.str('PayAddress') !== '' && o.str('EpayId') !== '' && o.str('EpayKey') !== '',
    enable_stripe_topup: stripeEnabled(o),
    stripe_unit_price: o.num('StripeUnitPrice'),
    stripe_currency: (o.str('StripeCurrency') || 'usd').toLowerCase(),
    stripe_min_topup: o.num('StripeMinTopUp'),
    stripe_amount_options: stripeAmountOptions(o),
    quota_per_unit: o.num('QuotaPerUnit'),
    display_in_currency: o.bool('DisplayInCurrencyEnabled'),
    display_token_stat: o.bool('DisplayTokenStatEnabled'),
    chat_link: o.str('ChatLink'),
    chat_link2: o.str('ChatLink2'),
    chats: Array.isArray(chats) ? (chats as ChatEntry[]) : [],
    enable_batch_update: false,
    enable_drawing: o.bool('DrawingEnabled'),
    enable_task: o.bool('TaskEnabled'),
    enable_data_export: o.bool('DataExportEnabled'),
    data_export_default_time: o.str('DataExportDefaultTime'),
    default_collapse_sidebar: o.bool('DefaultCollapseSidebar'),
    mj_notify_enabled: o.bool('MjNotifyEnabled'),
  };
}

export function statusRoutes(app: FastifyInstance, ctx: Deps): void {
  const declare = routeDeclarer(app, authGuards(ctx));
  declare('GET /api/status', {}, async (req) => ok(buildStatus(ctx, requestLang(req))));
  // The reference's admin DB ping: a failure is the envelope's error, not a 5xx.
  declare('GET /api/status/test', {}, async () => {
    const started = performance.now();
    try {
      await sql`select 1`.execute(ctx.db.db);
    } catch {
      throw new AppError('DB_UNREACHABLE');
    }
    return ok({ database_ms: Math.round((performance.now() - started) * 100) / 100 });
  });
  declare('GET /api/notice', {}, async () => ok(ctx.options.str('Notice')));
  declare('GET /api/about', {}, async () => ok(ctx.options.str('About')));
  declare('GET /api/home_page_content', {}, async () => ok(ctx.options.str('HomePageContent')));
}
