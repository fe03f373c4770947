import type { IncomingHttpHeaders } from 'node:http';

/** A service account the fake knows: its email and the public half of its key. */
export interface FakeServiceAccount {
  clientEmail: string;
  /** SPKI PEM of the account's RSA key. */
  publicKey: string;
  /** When set, calls with this account's tokens must name this project. */
  projectId?: string;
}

export interface FakeVertexOptions {
  port?: number;
  host?: string;
  serviceAccounts: FakeServiceAccount[];
  /** Lifetime of issued access tokens (`expires_in`); default 3599. */
  tokenLifetimeSec?: number;
  /** Words of a text reply; default 5. */
  chunkCount?: number;
}

export interface VertexRecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  body: unknown;
  /** `token`, or the publisher (`google`, `anthropic`) of a model call. */
  kind: 'token' | 'google' | 'anthropic' | 'other';
  project?: string;
  location?: string;
  model?: string;
  action?: string;
  rejected?: { status: number; message: string };
}

export interface FakeVertex {
  url: string;
  port: number;
  /** The token endpoint: put it in a service-account key's `token_uri`. */
  tokenUri: string;
  requests: VertexRecordedRequest[];
  /** Token requests answered with a token. */
  tokensIssued(): number;
  /** Refuse token requests (`invalid_grant`) with this description while set. */
  refuseTokens(description: string | null): void;
  reset(): void;
  close(): Promise<void>;
}
