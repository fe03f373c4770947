import type { IncomingHttpHeaders } from 'node:http';

export interface FakeAwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  /** When set, requests must carry (and sign) this `x-amz-security-token`. */
  sessionToken?: string;
}

/**
 * A fault to inject, for the whole instance (`setFault`) or one request (header
 * `x-fake-fault: <JSON>`, which is not signed). Error replies are AWS's: `{"message"}` with the
 * exception named in `x-amzn-ErrorType`.
 */
export interface FakeBedrockFault {
  /** Reply with this status and exception (e.g. 429 ThrottlingException). */
  status?: number;
  /** The exception name; by default the one Bedrock documents for the status. */
  exception?: string;
  message?: string;
  /** Stream only: after N chunk events, send an exception message (`throttlingException` unless `streamException` says otherwise). */
  exceptionAfterEvents?: number;
  streamException?: string;
  /** Stream only: after N chunk events, send a frame whose message CRC does not match, then end. */
  corruptAfterEvents?: number;
  times?: number;
}

export interface FakeBedrockOptions {
  port?: number;
  host?: string;
  /** Accepted credentials; default one pair, `AKIDFAKE` / `fake-secret`. */
  credentials?: FakeAwsCredentials[];
  /** The region requests must be signed for (default: any). */
  region?: string;
  /** Words of a text reply (= chunk events of text = output tokens); default 5. */
  chunkCount?: number;
  fault?: FakeBedrockFault | null;
}

export interface BedrockRecordedRequest {
  method: string;
  /** The path as sent (the model id encoded once). */
  path: string;
  /** The decoded model id of the path. */
  modelId: string;
  headers: IncomingHttpHeaders;
  body: unknown;
  rejected?: { status: number; exception: string; message: string };
}

export interface FakeBedrock {
  url: string;
  port: number;
  requests: BedrockRecordedRequest[];
  reset(): void;
  setFault(fault: FakeBedrockFault | null): void;
  close(): Promise<void>;
}
