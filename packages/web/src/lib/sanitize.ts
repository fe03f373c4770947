import DOMPurify from 'dompurify';

/**
 * Admin-provided HTML (home page, about, notice, footer) goes through DOMPurify: the admin may be
 * compromised or careless, and this HTML runs on every visitor's session. Its own module so the
 * footer can load it alone, without the Markdown parser (`content.ts`).
 */
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

/** Form controls have no place in rendered content: a form posting elsewhere is a fake sign-in. */
const FORM_TAGS = ['form', 'input', 'textarea', 'select', 'button'];

export function sanitizeHtml(html: string): string {
  return purifier().sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: FORM_TAGS });
}

/**
 * Text a model wrote (and so whoever wrote its prompt, or a page it read): no styles either, so an
 * answer cannot cover or restyle the console around it.
 */
export function sanitizeUntrustedHtml(html: string): string {
  return purifier().sanitize(html, { ADD_ATTR: ['target'], FORBID_TAGS: [...FORM_TAGS, 'style'], FORBID_ATTR: ['style'] });
}
