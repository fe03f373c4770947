import { marked } from 'marked';
import { sanitizeHtml } from './sanitize';

/**
 * Admin-provided content (home page, about, notice, footer) is Markdown, raw HTML, or an https URL
 * the reference shows in an iframe. Everything rendered as HTML goes through `sanitizeHtml`.
 */
export type RichContent = { kind: 'empty' } | { kind: 'url'; url: string } | { kind: 'html'; html: string };

export function renderMarkdown(markdown: string): string {
  // marked passes inline HTML through, so Markdown and HTML content share one path.
  const html = marked.parse(markdown, { async: false, gfm: true, breaks: false });
  return sanitizeHtml(html);
}

export function classifyContent(content: string | null | undefined): RichContent {
  const text = (content ?? '').trim();
  if (!text) return { kind: 'empty' };
  if (/^https:\/\/\S+$/.test(text)) return { kind: 'url', url: text };
  return { kind: 'html', html: renderMarkdown(text) };
}
