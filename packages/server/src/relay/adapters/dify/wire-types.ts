/**
 * Dify's app API as documented (no Dify SDK here): "Send Chat Message" `POST /v1/chat-messages`
 * in langgenius/dify `web/app/components/develop/template/template_chat.en.mdx` (request,
 * blocking "ChatCompletionResponse", streaming "ChunkChatCompletionResponse" events, errors).
 * Fixtures in `fixtures/` are checked against these.
 */

/** `usage` of a blocking answer and of `message_end`: Dify's prices are decimal strings. */
export interface DifyUsage {
  prompt_tokens: number;
  prompt_unit_price: string;
  prompt_price_unit: string;
  prompt_price: string;
  completion_tokens: number;
  completion_unit_price: string;
  completion_price_unit: string;
  completion_price: string;
  total_tokens: number;
  total_price: string;
  currency: string;
  latency: number;
}

export interface DifyRetrieverResource {
  position: number;
  dataset_id: string;
  dataset_name: string;
  document_id: string;
  document_name: string;
  segment_id: string;
  score: number;
  content: string;
}

export interface DifyMetadata {
  usage: DifyUsage;
  retriever_resources?: DifyRetrieverResource[];
}

/** The request body ("Request Body"). */
export interface DifyChatRequest {
  query: string;
  inputs: Record<string, unknown>;
  response_mode: 'streaming' | 'blocking';
  user: string;
  conversation_id?: string;
  files?: Array<{ type: 'image' | 'document' | 'audio' | 'video' | 'custom'; transfer_method: 'remote_url' | 'local_file'; url?: string; upload_file_id?: string }>;
  auto_generate_name?: boolean;
}

/** A blocking answer ("ChatCompletionResponse"). */
export interface DifyChatResponse {
  event: 'message';
  task_id: string;
  id: string;
  message_id: string;
  conversation_id: string;
  mode: 'chat' | 'advanced-chat' | 'agent-chat';
  answer: string;
  metadata: DifyMetadata;
  created_at: number;
}

interface DifyEventBase {
  task_id: string;
  message_id: string;
  conversation_id: string;
  created_at: number;
}

/** One `data:` frame of a streaming answer ("ChunkChatCompletionResponse"): the event name is inside. */
export type DifyStreamEvent =
  | (DifyEventBase & { event: 'message' | 'agent_message'; id?: string; answer: string })
  | (DifyEventBase & { event: 'message_replace'; answer: string })
  | (DifyEventBase & { event: 'agent_thought'; id: string; position: number; thought: string; observation: string; tool: string; tool_input: string; message_files: string[] })
  | (DifyEventBase & { event: 'message_file'; id: string; type: 'image'; belongs_to: 'assistant'; url: string })
  | (Omit<DifyEventBase, 'created_at'> & { event: 'message_end'; id?: string; metadata: DifyMetadata; files?: unknown[] | null })
  | { event: 'workflow_started' | 'workflow_finished' | 'node_started' | 'node_finished'; task_id: string; workflow_run_id: string; data: Record<string, unknown> }
  | (Omit<DifyEventBase, 'conversation_id'> & { event: 'tts_message' | 'tts_message_end'; audio: string })
  | { event: 'error'; task_id: string; message_id: string; status: number; code: string; message: string }
  | { event: 'ping' };

/** An error answer: `{status, code, message}` with the HTTP status repeated. */
export interface DifyError {
  status: number;
  code: string;
  message: string;
}
