import DOMPurify from 'dompurify';
import { marked } from 'marked';

/**
 * Admin-provided content (home page, about, notice, footer) is Markdown, raw HTML, or an https URL
 * the reference shows in an iframe. Everything rendered as HTML goes through DOMPurify: the admin
 * may be compromised or careless, and this HTML runs on every visitor's session.
 */
export type RichContent = { kind: 'empty' } | { kind: 'url'; url: string } | { kind: 'html'; html: string };

let hooked = false;
function purifier(): typeof DOMPurify {
  if (!hooked) {
    hooked = true;
    // Links that open elsewhere must not get a handle on this window.
    DOMPurify.addHook('afterSanitizeAttributes', (node) => {
      if (node instanceof Element && node.tagName === 'A' && node.getAttribute('target') === '_blank') {
        node.setAttribute('rel', 'noopener noreferrer');
      }
    });
  }
  return DOMPurify;
}

export function sanitizeHtml(html: string): string {
  return purifier().sanitize(html, { ADD_ATTR: ['target'] });
}

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
