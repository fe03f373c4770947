/**
 * iFlytek Spark chat over WebSocket as documented (no iFlytek SDK here): "星火认知大模型 Web API 文档"
 * https://www.xfyun.cn/doc/spark/Web.html ("请求参数" for the request frame, "返回参数" for the
 * answer frames, "错误码" for `header.code`). Each type is one JSON text frame.
 */

export interface SparkTextMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

/** The one frame the client sends after the handshake. */
export interface SparkRequestFrame {
  header: { app_id: string; uid?: string };
  parameter: {
    chat: {
      domain: string;
      /** (0, 1]. */
      temperature?: number;
      max_tokens?: number;
      top_k?: number;
      chat_id?: string;
    };
  };
  payload: { message: { text: SparkTextMessage[] } };
}

/** `status`: 0 the first frame, 1 a middle one, 2 the last (in the header and in `choices`). */
export type SparkStatus = 0 | 1 | 2;

export interface SparkFrameHeader {
  /** 0 for success; any other value is an error code (then the frame is the last). */
  code: number;
  message: string;
  sid: string;
  status: SparkStatus;
}

/** An answer frame; only the last (`status: 2`) carries `payload.usage`. */
export interface SparkResponseFrame {
  header: SparkFrameHeader;
  payload: {
    choices: { status: SparkStatus; seq: number; text: Array<{ content: string; role: 'assistant'; index: number }> };
    usage?: { text: { question_tokens: number; prompt_tokens: number; completion_tokens: number; total_tokens: number } };
  };
}

/** An error frame: `header.code` ≠ 0, `status: 2`, no payload; the server closes the socket after it. */
export interface SparkErrorFrame {
  header: SparkFrameHeader;
}
