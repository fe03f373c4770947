import type { OAuthProvider } from '@modelgate/shared/api';
import type { OptionsService } from '../options/options.service.js';
import type { IdentityColumn } from '../users/users.service.js';
import { AppError } from '../../http/errors.js';
import { discover, verifyIdToken } from './oidc.js';
import { pkceChallenge, type OAuthState } from './oauth-state.js';
import { providerCall, str, tokenRefusal, type ProviderHttp } from './provider-http.js';

/** Who the provider says signed in. */
export interface ExternalIdentity {
  /** What the user column stores (GitHub: the login, like the reference; LinuxDO: the numeric id; OIDC: the configured claim). */
  id: string;
  displayName: string;
  email: string;
}

export interface ProviderDeps {
  options: OptionsService;
  http: ProviderHttp;
}

/** One redirect-flow provider: its switch, its user column, and the two halves of the flow. */
export interface RedirectProvider {
  enabled(o: OptionsService): boolean;
  column: IdentityColumn;
  /** The username prefix of users it creates (`github_12`). */
  prefix: string;
  fallbackName: string;
  authorizeUrl(d: ProviderDeps, state: string, data: OAuthState, redirectUri: string): Promise<string>;
  identify(d: ProviderDeps, code: string, data: OAuthState, redirectUri: string): Promise<ExternalIdentity>;
}

const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${encodeURIComponent(id)}:${encodeURIComponent(secret)}`).toString('base64')}`;

function accessToken(answer: { status: number; json: Record<string, unknown> }): string {
  const refusal = tokenRefusal(answer);
  if (refusal) throw refusal;
  const token = str(answer.json.access_token);
  if (!token) throw new AppError('OAUTH_PROVIDER_ERROR', 200, 'no access_token');
  return token;
}

async function profile(d: ProviderDeps, url: string, token: string): Promise<Record<string, unknown>> {
  const answer = await providerCall(d.http, url, { headers: { authorization: `Bearer ${token}` } });
  if (answer.status !== 200) throw new AppError('OAUTH_PROVIDER_ERROR', 200, `${new URL(url).pathname} HTTP ${answer.status}`);
  return answer.json;
}

/** GitHub's web application flow (docs.github.com, "Authorizing OAuth apps"). */
const github: RedirectProvider = {
  enabled: (o) => o.bool('GitHubOAuthEnabled'),
  column: 'github_id',
  prefix: 'github',
  fallbackName: 'GitHub User',
  async authorizeUrl(d, state, _data, redirectUri) {
    const o = d.options;
    return `${o.str('GitHubOAuthEndpoint')}/login/oauth/authorize?${form({ client_id: o.str('GitHubClientId'), redirect_uri: redirectUri, scope: 'user:email', state })}`;
  },
  async identify(d, code, _data, redirectUri) {
    const o = d.options;
    const answer = await providerCall(d.http, `${o.str('GitHubOAuthEndpoint')}/login/oauth/access_token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: o.str('GitHubClientId'), client_secret: o.str('GitHubClientSecret'), code, redirect_uri: redirectUri }),
    });
    const user = await profile(d, `${o.str('GitHubApiEndpoint')}/user`, accessToken(answer));
    return { id: str(user.login), displayName: str(user.name) || str(user.login), email: str(user.email) };
  },
};

/** LinuxDO Connect: standard authorization code with HTTP Basic client authentication. */
const linuxdo: RedirectProvider = {
  enabled: (o) => o.bool('LinuxDOOAuthEnabled'),
  column: 'linux_do_id',
  prefix: 'linuxdo',
  fallbackName: 'LinuxDO User',
  async authorizeUrl(d, state, _data, redirectUri) {
    const o = d.options;
    return `${o.str('LinuxDOOAuthEndpoint')}/oauth2/authorize?${form({ response_type: 'code', client_id: o.str('LinuxDOClientId'), redirect_uri: redirectUri, state })}`;
  },
  async identify(d, code, _data, redirectUri) {
    const o = d.options;
    const answer = await providerCall(d.http, `${o.str('LinuxDOOAuthEndpoint')}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(o.str('LinuxDOClientId'), o.str('LinuxDOClientSecret')) },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri }),
    });
    const user = await profile(d, `${o.str('LinuxDOOAuthEndpoint')}/api/user`, accessToken(answer));
    return { id: str(user.id), displayName: str(user.name) || str(user.username), email: str(user.email) };
  },
};

/** Generic OpenID Connect (Core 1.0, authorization code flow) with PKCE S256 and a checked ID token. */
const oidc: RedirectProvider = {
  enabled: (o) => o.bool('OIDCEnabled'),
  column: 'oidc_id',
  prefix: 'oidc',
  fallbackName: 'OIDC User',
  async authorizeUrl(d, state, data, redirectUri) {
    const o = d.options;
    const meta = await discover(d.http, o.str('OIDCWellKnown'));
    const url = new URL(meta.authorization_endpoint);
    const params = {
      response_type: 'code',
      client_id: o.str('OIDCClientId'),
      redirect_uri: redirectUri,
      scope: o.str('OIDCScopes') || 'openid',
      state,
      nonce: data.nonce,
      code_challenge: pkceChallenge(data.verifier),
      code_challenge_method: 'S256',
    };
    for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
    return url.toString();
  },
  async identify(d, code, data, redirectUri) {
    const o = d.options;
    const meta = await discover(d.http, o.str('OIDCWellKnown'));
    const clientId = o.str('OIDCClientId');
    const answer = await providerCall(d.http, meta.token_endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: basic(clientId, o.str('OIDCClientSecret')) },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, code_verifier: data.verifier }),
    });
    const token = accessToken(answer);
    const idToken = str(answer.json.id_token);
    let claims: Record<string, unknown> = idToken ? await verifyIdToken(d.http, meta, idToken, { clientId, nonce: data.nonce }) : {};
    if (meta.userinfo_endpoint) {
      const info = await profile(d, meta.userinfo_endpoint, token);
      // UserInfo's `sub` must be the ID token's (Core §5.3.2), or the answers are about two people.
      if (claims.sub !== undefined && info.sub !== undefined && info.sub !== claims.sub) throw new AppError('OAUTH_ID_TOKEN_INVALID', 200, 'sub');
      claims = { ...info, ...claims };
    }
    const id = str(claims[o.str('OIDCUserIdClaim') || 'sub']);
    return { id, displayName: str(claims.name) || str(claims.preferred_username), email: claims.email_verified === false ? '' : str(claims.email) };
  },
};

/**
 * Discord's OAuth2 authorization code flow (discord.com/developers/docs/topics/oauth2): authorize
 * at `/oauth2/authorize` with the `identify email` scopes, the code exchanged at `/api/oauth2/token`
 * (form-encoded, client credentials in the body), the user from `/api/users/@me`. The id is the
 * user's snowflake; the email only when Discord says it is verified.
 */
const discord: RedirectProvider = {
  enabled: (o) => o.bool('DiscordOAuthEnabled'),
  column: 'discord_id',
  prefix: 'discord',
  fallbackName: 'Discord User',
  async authorizeUrl(d, state, _data, redirectUri) {
    const o = d.options;
    return `${o.str('DiscordOAuthEndpoint')}/oauth2/authorize?${form({ response_type: 'code', client_id: o.str('DiscordClientId'), redirect_uri: redirectUri, scope: 'identify email', state, prompt: 'none' })}`;
  },
  async identify(d, code, _data, redirectUri) {
    const o = d.options;
    const answer = await providerCall(d.http, `${o.str('DiscordOAuthEndpoint')}/api/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: form({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: o.str('DiscordClientId'), client_secret: o.str('DiscordClientSecret') }),
    });
    const user = await profile(d, `${o.str('DiscordOAuthEndpoint')}/api/users/@me`, accessToken(answer));
    return { id: str(user.id), displayName: str(user.global_name) || str(user.username), email: user.verified === true ? str(user.email) : '' };
  },
};

export const REDIRECT_PROVIDERS: Record<OAuthProvider, RedirectProvider> = { github, linuxdo, oidc, discord };
