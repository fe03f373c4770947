import type { Content, EmbedContentResponse, FunctionDeclaration, GenerateContentResponse, GenerationConfig, SafetySetting, Schema, Tool, ToolConfig, Type } from '@google/genai';

/**
 * The Gemini API's JSON (ai.google.dev/api/generate-content, /api/embeddings), written from the
 * @google/genai SDK's own types. Two adjustments make an SDK type a wire type: the SDK's enums
 * (`FinishReason.STOP`) become their string values (`"STOP"`, what the JSON carries), and the SDK's
 * response class is taken without its convenience getters (`text`, `functionCalls`, …) and the
 * fields the SDK adds itself (`sdkHttpResponse`, `automaticFunctionCallingHistory`).
 */

/** A type with every enum replaced by its string values, recursively. */
export type Wire<T> = T extends string ? `${T}` : T extends readonly (infer U)[] ? Wire<U>[] : T extends object ? { [K in keyof T]: Wire<T[K]> } : T;

/** `GenerateContentResponse` as sent by `:generateContent` and each `:streamGenerateContent?alt=sse` chunk. */
export type GenerateContentResponseJSON = Wire<Pick<GenerateContentResponse, 'candidates' | 'promptFeedback' | 'usageMetadata' | 'modelVersion' | 'responseId' | 'createTime' | 'modelStatus'>>;

/**
 * A function's parameter schema as the REST docs write it: the SDK's `Type` enum is upper case
 * (`OBJECT`), while every REST example of ai.google.dev/gemini-api/docs/function-calling writes the
 * OpenAPI names in lower case (`"type": "object"`), which the API accepts; both are allowed here.
 */
export type SchemaJSON = Omit<Wire<Schema>, 'type' | 'properties' | 'items' | 'anyOf'> & {
  type?: `${Type}` | Lowercase<`${Type}`>;
  properties?: Record<string, SchemaJSON>;
  items?: SchemaJSON;
  anyOf?: SchemaJSON[];
};

/** A tool of a request, its function declarations' schemas written as the REST docs do. */
export type ToolJSON = Omit<Wire<Tool>, 'functionDeclarations'> & {
  functionDeclarations?: Array<Omit<Wire<FunctionDeclaration>, 'parameters' | 'response'> & { parameters?: SchemaJSON; response?: SchemaJSON }>;
};

/** The body of `POST /v1beta/models/{model}:generateContent` (ai.google.dev/api/generate-content, "Request body"). */
export type GenerateContentRequestJSON = Wire<{
  contents: Content[];
  systemInstruction?: Content;
  generationConfig?: GenerationConfig;
  safetySettings?: SafetySetting[];
  toolConfig?: ToolConfig;
  cachedContent?: string;
}> & { tools?: ToolJSON[] };

/** `POST /v1beta/models/{model}:batchEmbedContents` (ai.google.dev/api/embeddings#method:-models.batchembedcontents). */
export type BatchEmbedContentsRequestJSON = Wire<{
  requests: Array<{ model: string; content: Content; taskType?: string; title?: string; outputDimensionality?: number }>;
}>;

/** Its answer: one embedding per request, in order. */
export type BatchEmbedContentsResponseJSON = Wire<Required<Pick<EmbedContentResponse, 'embeddings'>>>;

/**
 * A Google API error (google.rpc.Status as JSON; ai.google.dev/gemini-api/docs/troubleshooting),
 * also the frame a stream fails with. `details` are typed `google.rpc` messages
 * (`@type` names which: ErrorInfo with a `reason`, Help with links, RetryInfo with a delay).
 */
export interface GoogleErrorJSON {
  error: {
    code: number;
    message: string;
    status: string;
    details?: Array<{ '@type': string; [field: string]: unknown }>;
  };
}
