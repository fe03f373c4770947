/**
 * AIProxy's knowledge-base ("library") ask API against OpenAI chat. Field names from one-api's
 * adaptor of it (`relay/adaptor/aiproxy/model.go`, reference §6.6) and AIProxy's own library
 * client (`Api-Key` header, base `https://aiproxy.io/api`):
 * - request `POST {base}/api/library/ask` `{model, query, libraryId, stream}`;
 * - reply `{success, answer, documents:[{title, url}], errCode, message}`;
 * - stream `data:{content, finish, model, documents}` events, the documents on the finishing one.
 * No usage is reported: it is counted locally.
 */
import type { Lang } from '@modelgate/shared';
import { isObj, parseObject, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { UpstreamEvent, WireError } from '../../../../formats/types.js';

export interface LibraryDocument {
  title: string;
  url: string;
}

/** The last user message: the library answers one question, with no history. */
export function libraryQuery(messages: unknown): string {
  const list = Array.isArray(messages) ? messages.filter(isObj) : [];
  const last = [...list].reverse().find((m) => m.role === 'user');
  return last ? plainText(last.content) : '';
}

/** An OpenAI chat body → the ask body; a request without a user question is refused with a 400. */
export function libraryRequest(body: Record<string, unknown>, o: { model: string; libraryId: string; stream: boolean; lang: Lang }): Record<string, unknown> {
  const query = libraryQuery(body.messages);
  if (!query.trim()) throw unsupported(o.lang, 'messages', 'the AIProxy library answers the last user message, and there is none');
  return { model: o.model, query, libraryId: o.libraryId, stream: o.stream };
}

export function libraryDocuments(raw: unknown): LibraryDocument[] {
  return (Array.isArray(raw) ? raw.filter(isObj) : []).map((d) => ({ title: typeof d.title === 'string' ? d.title : '', url: typeof d.url === 'string' ? d.url : '' }));
}

/** The documents as the reference list appended to the answer ('' when there are none). */
export function referencesText(docs: LibraryDocument[], lang: Lang): string {
  if (docs.length === 0) return '';
  const heading = lang === 'zh' ? '参考文档：' : 'References:';
  return `\n\n${heading}\n${docs.map((d, i) => `${i + 1}. [${d.title || d.url}](${d.url})`).join('\n')}`;
}

/** A `success:false` reply (HTTP 200 or not) as a wire error with AIProxy's own message. */
export function libraryError(status: number, json: Record<string, unknown>): WireError | undefined {
  if (json.success !== false) return undefined;
  const code = json.errCode ?? json.errorCode;
  const message = typeof json.message === 'string' && json.message ? json.message : typeof json.errMsg === 'string' && json.errMsg ? json.errMsg : 'the AIProxy library refused the question';
  return { status, type: 'aiproxy_error', code: code === undefined || code === null ? null : String(code), param: null, message };
}

/** The answer text a caller gets: the answer, then the references. */
export function libraryAnswer(json: Record<string, unknown>, lang: Lang): string {
  return (typeof json.answer === 'string' ? json.answer : '') + referencesText(libraryDocuments(json.documents), lang);
}

/** A reply → an OpenAI chat completion (usage written once counted). */
export function libraryCompletion(json: Record<string, unknown>, model: string, requestId: string, lang: Lang): Record<string, unknown> {
  return {
    id: `chatcmpl-${requestId}`,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message: { role: 'assistant', content: libraryAnswer(json, lang) }, finish_reason: 'stop' }],
  };
}

/** Stream events → OpenAI chunk events: each `content` a delta; the finishing event adds the references and `finish_reason:"stop"`. */
export function libraryChunks(model: string, requestId: string, lang: Lang) {
  let first = true;
  const created = Math.floor(Date.now() / 1000);
  return (ev: UpstreamEvent): UpstreamEvent | undefined => {
    const json = parseObject(ev.data);
    if (!json) return undefined;
    const err = libraryError(500, json);
    if (err) return { event: undefined, data: JSON.stringify({ error: { type: err.type, code: err.code, message: err.message } }) };
    const finish = json.finish === true;
    const content = (typeof json.content === 'string' ? json.content : '') + (finish ? referencesText(libraryDocuments(json.documents), lang) : '');
    const delta: Record<string, unknown> = { content };
    if (first) delta.role = 'assistant';
    first = false;
    const chunk = { id: `chatcmpl-${requestId}`, object: 'chat.completion.chunk', created, model, choices: [{ index: 0, delta, finish_reason: finish ? 'stop' : null }] };
    return { event: undefined, data: JSON.stringify(chunk) };
  };
}
