import { call } from '../../lib/api';

export const homeKeys = {
  notice: ['home', 'notice'] as const,
  content: ['home', 'content'] as const,
};

/** The reference relies on these strings never being null (`data.startsWith`); normalise anyway. */
export const asText = (value: unknown) => (typeof value === 'string' ? value : '');

export async function fetchNotice(): Promise<string> {
  return asText(await call('GET /api/notice'));
}

/** Cached in localStorage (as the reference does) so a revisit paints before the request returns. */
export async function fetchHomeContent(): Promise<string> {
  const content = asText(await call('GET /api/home_page_content'));
  localStorage.setItem('home_page_content', content);
  return content;
}
