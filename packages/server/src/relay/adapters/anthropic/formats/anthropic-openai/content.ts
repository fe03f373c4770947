import { drop, isObj, plainText, unsupported } from '../../../../formats/shared/wire.js';
import type { ConvertContext } from '../../../../formats/types.js';

/**
 * Anthropic content blocks → OpenAI chat message parts (docs/providers.md "Conversion policy",
 * Anthropic → OpenAI chat). Text, images, PDFs, text documents, search results and tool results
 * map; echoed thinking is left out silently (OpenAI takes no earlier reasoning as input); blocks of
 * Anthropic's server tools (`server_tool_use`, `web_search_tool_result`, …) are left out with a
 * note; only what would change meaning (an image by file id, a document by URL) is refused.
 */
type Msg = Record<string, unknown>;

/** Notes a `cache_control` marker anywhere in the body once: OpenAI caches prompt prefixes by itself. */
export function noteCacheControl(b: Msg, cx: ConvertContext): void {
  if (b.cache_control !== undefined) drop(cx, 'cache_control', 'OpenAI caches prompt prefixes automatically');
}

function imagePart(b: Msg, cx: ConvertContext, where: string): Msg {
  const s = isObj(b.source) ? b.source : {};
  if (s.type === 'base64' && typeof s.media_type === 'string' && typeof s.data === 'string') {
    return { type: 'image_url', image_url: { url: `data:${s.media_type};base64,${s.data}` } };
  }
  if (s.type === 'url' && typeof s.url === 'string') return { type: 'image_url', image_url: { url: s.url } };
  throw unsupported(cx.lang, `${where}.source`, 'only base64 and url image sources can be sent to this channel');
}

/** A document: a base64 PDF → a file part; a text or content-block source → its text. */
function documentPart(b: Msg, cx: ConvertContext, where: string): Msg {
  const s = isObj(b.source) ? b.source : {};
  if (s.type === 'base64' && s.media_type === 'application/pdf' && typeof s.data === 'string') {
    return { type: 'file', file: { filename: typeof b.title === 'string' ? b.title : 'document.pdf', file_data: `data:application/pdf;base64,${s.data}` } };
  }
  const title = typeof b.title === 'string' && b.title ? `${b.title}\n\n` : '';
  if (s.type === 'text' && typeof s.data === 'string') return { type: 'text', text: title + s.data };
  if (s.type === 'content') return { type: 'text', text: title + plainText(s.content) };
  throw unsupported(cx.lang, `${where}.source`, 'only base64 PDF and text documents can be sent to this channel');
}

/** A search result block → text naming its source. */
function searchResultText(b: Msg): string {
  const head = [b.title, b.source].filter((v) => typeof v === 'string' && v).join(' — ');
  return `${head ? `${head}\n` : ''}${plainText(b.content)}`;
}

/** A tool result's text for its `tool` message; images in it go to `images` (a user message after the results). */
function toolResult(b: Msg, cx: ConvertContext, where: string, images: Msg[]): string {
  if (typeof b.content === 'string' || b.content === undefined || b.content === null) return String(b.content ?? '');
  if (!Array.isArray(b.content)) throw unsupported(cx.lang, `${where}.content`, 'must be a string or content blocks');
  const texts: string[] = [];
  b.content.forEach((raw, k) => {
    const c = isObj(raw) ? raw : {};
    const at = `${where}.content.${k}`;
    noteCacheControl(c, cx);
    if (c.type === 'text') texts.push(String(c.text ?? ''));
    else if (c.type === 'image') images.push(imagePart(c, cx, at));
    else if (c.type === 'document') {
      const part = documentPart(c, cx, at);
      if (part.type === 'text') texts.push(String(part.text));
      else images.push(part);
    } else if (c.type === 'search_result') texts.push(searchResultText(c));
    else drop(cx, `${at}(${String(c.type)})`, 'no OpenAI counterpart');
  });
  return texts.join('\n');
}

/** Blocks only Anthropic's servers produce or read (server tool calls and results, container uploads). */
const serverBlock = (type: unknown) => typeof type === 'string' && (type === 'server_tool_use' || type === 'mcp_tool_use' || type.endsWith('_tool_result') || type === 'container_upload');

/** A user turn → its tool results (each its own `tool` message, first) and the rest as one user message. */
export function userMessages(content: unknown, cx: ConvertContext, where: string): Msg[] {
  if (typeof content === 'string') return [{ role: 'user', content }];
  const tools: Msg[] = [];
  const parts: Msg[] = [];
  (Array.isArray(content) ? content : []).forEach((raw, j) => {
    const b = isObj(raw) ? raw : {};
    const at = `${where}.${j}`;
    noteCacheControl(b, cx);
    switch (b.type) {
      case 'text':
        parts.push({ type: 'text', text: String(b.text ?? '') });
        return;
      case 'image':
        parts.push(imagePart(b, cx, at));
        return;
      case 'document':
        parts.push(documentPart(b, cx, at));
        return;
      case 'search_result':
        parts.push({ type: 'text', text: searchResultText(b) });
        return;
      case 'tool_result': {
        // OpenAI wants each result as its own `tool` message, right after the assistant's calls;
        // a `tool` message carries text only, so images of a result follow in the user message.
        const images: Msg[] = [];
        tools.push({ role: 'tool', tool_call_id: b.tool_use_id, content: toolResult(b, cx, at, images) });
        parts.push(...images);
        return;
      }
      case 'thinking':
      case 'redacted_thinking':
        return;
      default:
        drop(cx, `${at}(${String(b.type)})`, serverBlock(b.type) ? 'server tools run only on Anthropic' : 'no OpenAI counterpart');
    }
  });
  return parts.length ? [...tools, { role: 'user', content: parts }] : tools;
}

/** An assistant turn → one assistant message: its text and its tool calls (echoed thinking left out). */
export function assistantMessage(content: unknown, cx: ConvertContext, where: string): Msg {
  if (typeof content === 'string') return { role: 'assistant', content };
  let text = '';
  const calls: Msg[] = [];
  (Array.isArray(content) ? content : []).forEach((raw, j) => {
    const b = isObj(raw) ? raw : {};
    noteCacheControl(b, cx);
    if (b.type === 'text') text += String(b.text ?? '');
    else if (b.type === 'tool_use') calls.push({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } });
    else if (b.type !== 'thinking' && b.type !== 'redacted_thinking') {
      drop(cx, `${where}.${j}(${String(b.type)})`, serverBlock(b.type) ? 'server tools run only on Anthropic' : 'no OpenAI counterpart');
    }
  });
  const msg: Msg = { role: 'assistant', content: text || null };
  if (calls.length) msg.tool_calls = calls;
  return msg;
}

/** A system message inside `messages` → a system message at the same place (its per-turn output_config noted). */
export function systemMessage(m: Msg, cx: ConvertContext, where: string): Msg | undefined {
  if (Array.isArray(m.content)) m.content.forEach((b) => isObj(b) && noteCacheControl(b, cx));
  if (m.output_config !== undefined) drop(cx, `${where}.output_config`, 'per-turn settings have no OpenAI counterpart');
  const text = plainText(m.content);
  return text ? { role: 'system', content: text } : undefined;
}
