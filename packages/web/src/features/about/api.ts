import { call } from '../../lib/api';
import { asText } from '../home/api';

export const aboutKeys = { content: ['about'] as const };

export async function fetchAbout(): Promise<string> {
  const content = asText(await call('GET /api/about'));
  localStorage.setItem('about', content);
  return content;
}
