/**
 * Google PaLM 2 `generateMessage` (v1beta2) as documented before its shutdown
 * (developers.generativeai.google/api/rest/generativelanguage/models/generateMessage: "Request
 * body", "GenerateMessageResponse") and Google's error body (cloud.google.com/apis/design/errors).
 * No SDK for it is installed here; fixtures in `fixtures/` are checked against these.
 */

export interface PalmMessage {
  author?: string;
  content: string;
  citationMetadata?: { citationSources: Array<{ startIndex?: number; endIndex?: number; uri?: string; license?: string }> };
}

export interface PalmMessagePrompt {
  context?: string;
  examples?: Array<{ input: PalmMessage; output: PalmMessage }>;
  messages: PalmMessage[];
}

/** `POST /v1beta2/{model=models/*}:generateMessage` body. */
export interface PalmGenerateMessageRequest {
  prompt: PalmMessagePrompt;
  temperature?: number;
  candidateCount?: number;
  topP?: number;
  topK?: number;
}

export interface PalmContentFilter {
  reason: 'BLOCKED_REASON_UNSPECIFIED' | 'SAFETY' | 'OTHER';
  message?: string;
}

/** The answer: candidates (none when blocked), the conversation so far, and what the filters did. */
export interface PalmGenerateMessageResponse {
  candidates?: PalmMessage[];
  messages?: PalmMessage[];
  filters?: PalmContentFilter[];
}

/** Google's error body. */
export interface PalmError {
  error: {
    code: number;
    message: string;
    status: string;
    details?: Array<{ '@type': string; reason?: string; domain?: string; metadata?: Record<string, string> }>;
  };
}
