import { Marked, type Tokens } from 'marked';
import { sanitizeUntrustedHtml } from '../../lib/sanitize';

/**
 * Model answers are Markdown written by a model (and so by whoever wrote the prompt): rendered
 * with marked, then sanitised with DOMPurify, more strictly than the admin's content (no forms,
 * no styles). Fenced code is coloured by a small lexical highlighter: comments, strings, numbers
 * and the keywords shared by the common languages — enough to read code at a glance without
 * shipping a grammar library.
 */

const KEYWORDS = new Set(
  (
    'abstract as async await break case catch class const continue def default del do elif else enum export extends false final finally fn for from func ' +
    'function go if impl import in interface is lambda let match mod module mut new nil none null package pass private protected pub public raise ' +
    'return self static struct super switch this throw true try type typeof undefined use var void where while with yield select insert update delete ' +
    'into values create table and or not'
  ).split(' '),
);

const TOKEN =
  /(\/\*[\s\S]*?\*\/|\/\/[^\n]*|#[^\n]*|--[^\n]*)|("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'|`(?:\\.|[^`\\])*`)|(\b(?:0x[\da-f]+|\d+(?:\.\d+)?(?:e[+-]?\d+)?)\b)|([A-Za-z_$][\w$]*)/gi;

/** Languages whose `#` starts a comment rather than, say, a CSS colour or a C directive. */
const HASH_COMMENTS = /^(py|python|sh|bash|shell|zsh|rb|ruby|yaml|yml|toml|r|perl|pl|ini|conf|dockerfile|makefile)$/i;
const DASH_COMMENTS = /^(sql|lua|haskell|hs)$/i;

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

export function highlightCode(code: string, lang: string): string {
  let out = '';
  let last = 0;
  for (const m of code.matchAll(TOKEN)) {
    const [text, comment, str, num, word] = m;
    let cls = '';
    if (comment) {
      if (comment.startsWith('#') && !HASH_COMMENTS.test(lang)) continue;
      if (comment.startsWith('--') && !DASH_COMMENTS.test(lang)) continue;
      cls = 'comment';
    } else if (str) cls = 'string';
    else if (num) cls = 'number';
    else if (word && KEYWORDS.has(/^(sql)$/i.test(lang) ? word.toLowerCase() : word)) cls = 'keyword';
    if (!cls) continue;
    out += escapeHtml(code.slice(last, m.index)) + `<span class="mg-hl-${cls}">${escapeHtml(text)}</span>`;
    last = m.index + text.length;
  }
  return out + escapeHtml(code.slice(last));
}

const marked = new Marked({
  gfm: true,
  breaks: true,
  renderer: {
    code({ text, lang }: Tokens.Code): string {
      const language = (lang ?? '').trim().split(/\s+/)[0] ?? '';
      const cls = language ? ` class="language-${escapeHtml(language)}"` : '';
      return `<pre class="mg-code"><code${cls}>${highlightCode(text, language)}</code></pre>\n`;
    },
  },
});

export function renderAnswer(markdown: string): string {
  return sanitizeUntrustedHtml(marked.parse(markdown, { async: false }));
}
