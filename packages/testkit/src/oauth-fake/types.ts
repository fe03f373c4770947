/** Who the fake provider signs in: the identity its authorize page approves. */
export interface FakeIdentity {
  /** GitHub's numeric id, LinuxDO's numeric id, Discord's snowflake, the OIDC `sub` (as a string). */
  id: number | string;
  /** GitHub `login`, LinuxDO and Discord `username`, OIDC `preferred_username`. */
  login: string;
  name?: string;
  email?: string;
  /** Discord's `verified` (the email is confirmed); default true when there is an email. */
  emailVerified?: boolean;
  /** LinuxDO's trust level (0-4); default 1. */
  trustLevel?: number;
}

export interface FakeOAuthOptions {
  clientId?: string;
  clientSecret?: string;
  /** Who the authorize page approves until `setIdentity()` says otherwise. */
  identity?: FakeIdentity;
  /**
   * GitHub's registered callback: where the authorize page sends the browser when the request has
   * no `redirect_uri` (GitHub allows that; the others require it).
   */
  defaultRedirectUri?: string;
  /** Refuse an authorize request without a PKCE S256 challenge (an OIDC provider that requires PKCE). */
  requirePkce?: boolean;
  port?: number;
  host?: string;
}

/** A fault on the fake's back-channel endpoints (token, user, userinfo, discovery, JWKS). */
export interface FakeOAuthFault {
  /** Wait this long before answering. */
  delayMs?: number;
  /** Answer this HTTP status with an error body instead. */
  status?: number;
  /** Only these paths (default: every back-channel path). */
  paths?: string[];
}

/** One back-channel request the fake received, for assertions. */
export interface FakeOAuthRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Form or JSON fields, and the query. */
  fields: Record<string, string>;
}

export interface FakeOAuth {
  url: string;
  port: number;
  clientId: string;
  clientSecret: string;
  /** OpenID Connect discovery document URL (`/.well-known/openid-configuration`). */
  discoveryUrl: string;
  /** The identity the authorize page approves from now on. */
  setIdentity(identity: FakeIdentity): void;
  setFault(fault: FakeOAuthFault | null): void;
  /** A code for `identity` as if the user had approved (for API tests that skip the browser). */
  issueCode(params: { redirectUri?: string; codeChallenge?: string; nonce?: string; identity?: FakeIdentity }): string;
  /** Back-channel requests received so far. */
  requests: FakeOAuthRequest[];
  close(): Promise<void>;
}
