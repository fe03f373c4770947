import { api } from '../../lib/api';
import { asText } from '../home/api';

export const aboutKeys = { content: ['about'] as const };

export async function fetchAbout(): Promise<string> {
  const content = asText(await api.get<string>('/api/about'));
  localStorage.setItem('about', content);
  return content;
}
