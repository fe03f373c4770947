/**
 * AIProxy's knowledge-base ("library") ask API. AIProxy publishes no schema of its own; the field
 * names are those of one-api's adaptor (`relay/adaptor/aiproxy/model.go`: LibraryRequest,
 * LibraryResponse, LibraryStreamResponse, LibraryDocument; providers-china-and-tasks §6.6).
 */

/** `POST {base}/api/library/ask` body. */
export interface LibraryAskRequest {
  model: string;
  query: string;
  libraryId: string;
  stream: boolean;
}

export interface LibraryAskDocument {
  title: string;
  url: string;
}

/** A non-stream answer; `success:false` with `errCode` and `message` is a failure (HTTP 200 too). */
export interface LibraryAskResponse {
  success: boolean;
  answer: string;
  documents: LibraryAskDocument[];
  errCode?: number;
  message?: string;
}

/** One `data:` frame of a streamed answer; the documents come on the finishing frame. */
export interface LibraryAskStreamEvent {
  content: string;
  finish: boolean;
  model: string;
  documents: LibraryAskDocument[];
}

/** A refused question. */
export interface LibraryAskError {
  success: false;
  errCode: number;
  message: string;
}
