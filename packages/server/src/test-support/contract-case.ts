import type { IncomingHttpHeaders } from 'node:http';

/**
 * What a provider folder tells the shared contract suite (relay/adapters/contract.api.test.ts)
 * about its adapters: each folder's `contract.case.ts` exports `contractCases`, one per adapter
 * slug it registers. The suite names no provider; everything a provider does differently (its
 * fake, its key, where the chat request goes, how it authenticates, the body it must receive and
 * how its prompt tokens are counted) is said here, beside the adapter.
 */

/** A request as the upstream received it (through the recording hop, or read back from the fake). */
export interface SentRequest {
  method: string;
  /** Path and query exactly as the adapter sent them. */
  url: string;
  headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>;
  /** The body parsed as JSON. */
  json: Record<string, unknown>;
}

/** A running fake upstream. */
export interface ContractFake {
  url: string;
  close(): Promise<void>;
  /**
   * What the fake itself received, for an upstream no HTTP hop can sit in front of (a WebSocket):
   * then the suite starts no recording hop and reads this instead.
   */
  received?(): Array<Omit<SentRequest, 'json'> & { body: Buffer }>;
  /** The channel key when it can only be made once the fake listens (a key naming the fake's token URL). */
  channelKey?: string;
}

/** What the suite hands a case's `startFake`. */
export interface ContractEnv {
  /** The harness's fake OpenAI upstream (every OpenAI-wire case is tested against it). */
  openai: { url: string };
}

/** The facts of one case's run an expectation may depend on. */
export interface ContractContext {
  /** The channel type under test. */
  type: number;
  /** The channel key the suite saved. */
  key: string;
  /** The upstream model the channel maps to (`ContractCase.model`). */
  model: string;
  /** The caller's ModelGate user id (upstreams keeping per-end-user state name it). */
  userId: number;
  /** The chat messages the suite sends: `[{ role: 'user', content: 'one two three' }]`. */
  messages: Array<{ role: 'user'; content: string }>;
}

/** The chat request the adapter must send: the caller's body was converted to the upstream's format. */
export interface ConvertedChat {
  /** The exact upstream body for the suite's request `{ model, messages, temperature: 0, user: 'u-1', metadata: { a: 'b' } }`. */
  body(cx: ContractContext): Record<string, unknown>;
  /** The prompt tokens billed for that body (the provider's usage, or the local count when it reports none). */
  promptTokens(sent: Record<string, unknown>, cx: ContractContext): number;
}

export interface ContractCase {
  /** The adapter slug this case tests (every type it registers is run). */
  slug: string;
  /** Cases naming the same fake share one fake and one recording hop. */
  fake: string;
  startFake(env: ContractEnv): Promise<ContractFake>;
  /** How the recording hop forwards: unchanged (`passthrough`, a fake that checks its own URL and auth), keeping the signed Host. Absent: rewritten to OpenAI's canonical paths. */
  hop?: { passthrough?: boolean; keepHost?: boolean };
  /** The channel key (absent: `key-<type>`). */
  key?: string;
  /** The channel's `other` field (an API version, an account or library id). */
  other?: string;
  /** The channel's base URL from the hop's (absent: the hop's URL). */
  baseUrl?(hopUrl: string): string;
  /** The upstream model a channel maps to, and the reply text the fake answers with. */
  model: string;
  text: string;
  /** The upstream embeddings model when the chat model does not embed (a second mapped model). */
  embedModel?: string;
  chat: {
    /** Where the chat request goes: path and query. */
    path: string;
    /** Compare only the path: the query carries a credential (`auth` checks it). */
    pathOnly?: boolean;
    /** Checks the request's credentials (absent: `Authorization: Bearer <key>`). */
    auth?(sent: SentRequest, cx: ContractContext): void;
    /** Absent: OpenAI's wire passed through (unknown fields and zero values reach the upstream untouched, OpenAI's counting rule). */
    converted?: ConvertedChat;
  };
  stream?: {
    /** Where a stream goes when not the chat path (a streaming endpoint of its own). */
    path?: string;
    /** Fields the stream's body must contain. */
    body?: Record<string, unknown>;
    /** The body carries `stream_options.include_usage` when the adapter asks for stream usage (OpenAI's wire). */
    asksUsage?: boolean;
  };
  /** The body an Anthropic Messages caller's stream must reach the upstream with, when passed through unchanged. */
  messagesStreamBody?(cx: ContractContext): Record<string, unknown>;
  /**
   * The upstream never streams (a streamed caller is answered from one whole reply): why. Then the
   * folder needs no stream fixture (relay/adapters/provider-units.test.ts).
   */
  noUpstreamStream?: string;
  /** Embeddings (for adapters serving them): where the request goes, or `false` with the reason it cannot be checked. */
  embeddings?: { path?: string } | { skip: string };
}

/** What a provider folder's `contract.case.ts` exports. */
export interface ContractCaseModule {
  contractCases: readonly ContractCase[];
}

/** The harness's own fake OpenAI as a case's fake: shared by every OpenAI-wire case, closed by the harness. */
export function harnessOpenAI(env: ContractEnv): Promise<ContractFake> {
  return Promise.resolve({ url: env.openai.url, close: () => Promise.resolve() });
}

/** The reply text of the harness's fake OpenAI. */
export const OPENAI_FAKE_TEXT = 'Hello from the fake OpenAI';
