import type fc from 'fast-check';
import { libraryChunks, libraryCompletion, libraryDocuments, libraryError, libraryQuery, libraryRequest } from '../relay/adapters/aiproxy-library/formats/aiproxy-library/index.js';
import { baiduChatRequest, baiduChatResponse, baiduEmbeddingsRequest, baiduEmbeddingsResponse, baiduError, baiduEvents } from '../relay/adapters/baidu/formats/baidu-ernie/index.js';
import { dashscopeImageRequest, dashscopeImageResponse, dashscopeTaskError, dashscopeTaskStatus } from '../relay/adapters/ali/formats/dashscope/images.js';
import { dashscopeChatRequest, dashscopeChatResponse, dashscopeChunks, dashscopeEmbeddingsRequest, dashscopeEmbeddingsResponse, dashscopeError } from '../relay/adapters/ali/formats/dashscope/index.js';
import { difyChatCompletion, difyError, difyEvents, difyRequest } from '../relay/adapters/dify/formats/dify/index.js';
import { hunyuanChunks, hunyuanError, hunyuanRequest, hunyuanResponse } from '../relay/adapters/tencent/formats/hunyuan/index.js';
import { ollamaTagNames } from '../relay/adapters/ollama/formats/ollama-embed/index.js';
import { palmBlocked, palmChatCompletion, palmError, palmRequest, palmSimulatedEvents } from '../relay/adapters/palm/formats/palm/index.js';
import { rerankDocumentTexts, rerankProblem, rerankReply } from '../relay/formats/rerank/index.js';
import { sparkChunks, sparkCompletion, sparkError, sparkMerge, sparkRequest } from '../relay/adapters/spark/formats/spark/index.js';
import type { UpstreamEvent } from '../relay/formats/types.js';
import { zhipuV3Error, zhipuV3Events, zhipuV3Request, zhipuV3Response } from '../relay/adapters/zhipu/formats/zhipu-v3/index.js';
import { openAIChatBody, upstreamReply } from './wire-arbitrary.js';

/**
 * The vendor formats of relay/formats that are functions rather than registered converters: each
 * request builder with a caller's body, each reply reader with an upstream reply, each stream
 * decoder with upstream events (formats.fuzz.test.ts runs them).
 */
type Obj = Record<string, unknown>;
export interface VendorCase {
  name: string;
  input?: fc.Arbitrary<Obj>;
  sync?: (input: Obj) => unknown;
  stream?: (events: UpstreamEvent[]) => Promise<unknown>;
}

const body = openAIChatBody as fc.Arbitrary<Obj>;
const reply = upstreamReply as fc.Arbitrary<Obj>;
const cx = { lang: 'en' as const, model: 'm', callerModel: 'm', clientWantsUsage: true, requestId: 'r', stream: false };

async function* bytes(events: UpstreamEvent[]): AsyncGenerator<Buffer> {
  for (const ev of events) yield Buffer.from(`${ev.event ? `event: ${ev.event}\n` : ''}data: ${ev.data}\n\n`);
}
async function* frames(events: UpstreamEvent[]): AsyncGenerator<UpstreamEvent> {
  yield* events;
}
async function drain(it: AsyncIterable<UpstreamEvent>): Promise<void> {
  for await (const ev of it) JSON.parse(ev.data);
}

export const VENDOR_CASES: VendorCase[] = [
  { name: 'AIProxy library request', input: body, sync: (b) => [libraryRequest(b, { model: 'm', libraryId: 'l', stream: true, lang: 'en' }), libraryQuery(b.messages)] },
  { name: 'AIProxy library reply', input: reply, sync: (j) => [libraryCompletion(j, 'm', 'r', 'en'), libraryError(500, j), libraryDocuments(j.documents)] },
  { name: 'AIProxy library stream', stream: async (evs) => evs.map(libraryChunks('m', 'r', 'en')) },
  { name: 'Baidu ERNIE requests', input: body, sync: (b) => [baiduChatRequest(b, 'en'), baiduEmbeddingsRequest(b, 'en')] },
  { name: 'Baidu ERNIE replies', input: reply, sync: (j) => [baiduChatResponse(j, 'm'), baiduEmbeddingsResponse(j, 'm'), baiduError(j)] },
  { name: 'Baidu ERNIE stream', stream: (evs) => drain(baiduEvents('m')(bytes(evs))) },
  { name: 'DashScope requests', input: body, sync: (b) => [dashscopeChatRequest(b, 'qwen-turbo', 'en'), dashscopeEmbeddingsRequest(b, 'text-embedding-v1', 'en'), dashscopeImageRequest(b, 'wanx-v1', 'en')] },
  { name: 'DashScope replies', input: reply, sync: (j) => [dashscopeChatResponse(j, 'm'), dashscopeEmbeddingsResponse(j, 'm'), dashscopeImageResponse(j), dashscopeError(500, j), dashscopeTaskError(j), dashscopeTaskStatus(j)] },
  { name: 'DashScope stream', stream: async (evs) => evs.map(dashscopeChunks('m')) },
  { name: 'Dify request and reply', input: reply, sync: (j) => [difyRequest(j, true, 'u'), difyChatCompletion(j, 'm'), difyError(400, j)] },
  { name: 'Dify stream', stream: (evs) => drain(difyEvents('m', 'r')(frames(evs))) },
  { name: 'Hunyuan request', input: body, sync: (b) => hunyuanRequest(b, 'hunyuan-lite', 'en') },
  { name: 'Hunyuan reply', input: reply, sync: (j) => [hunyuanResponse(j, 'm'), hunyuanError(j)] },
  { name: 'Hunyuan stream', stream: async (evs) => evs.map(hunyuanChunks('m')) },
  { name: 'Ollama model tags', input: reply, sync: (j) => ollamaTagNames(j) },
  { name: 'PaLM request and reply', input: body, sync: (b) => [palmRequest(b), palmChatCompletion(b, 'm', 'r'), palmBlocked(b), palmError(400, JSON.stringify(b))] },
  { name: 'PaLM stream', stream: (evs) => drain(palmSimulatedEvents('m', 'r')(bytes(evs))) },
  { name: 'Rerank body and reply', input: reply, sync: (j) => [rerankProblem(j), rerankDocumentTexts(j.documents), rerankReply(j, cx)] },
  { name: 'Spark request', input: body, sync: (b) => sparkRequest(b, { appId: 'a', uid: 'u', domain: 'general', lang: 'en' }) },
  { name: 'Spark frames', input: reply, sync: (j) => [sparkCompletion(j, 'm', 'r'), sparkError(j), sparkMerge([j, j])] },
  { name: 'Spark stream', stream: async (evs) => evs.map((e) => sparkChunks('m', 'r')(e.data)) },
  { name: 'Zhipu v3 request and reply', input: body, sync: (b) => [zhipuV3Request(b), zhipuV3Response(b, 'm'), zhipuV3Error(400, b)] },
  { name: 'Zhipu v3 stream', stream: (evs) => drain(zhipuV3Events('m')(bytes(evs))) },
];
