import { api } from '../../lib/api';

export interface Token {
  id: number;
  name: string;
  /** Stored and returned without the `sk-` prefix (gotcha G7). */
  key: string;
  /** 1 enabled, 2 disabled, 3 expired, 4 exhausted. */
  status: number;
  remain_quota: number;
  unlimited_quota: boolean;
  used_quota: number;
  created_time: number;
  accessed_time?: number;
  /** Unix seconds, -1 = never. */
  expired_time: number;
  model_limits_enabled: boolean;
  /** Comma-separated model names. */
  model_limits: string;
  allow_ips: string;
  /** '' = the owner's group. */
  group: string;
  [key: string]: unknown;
}

export interface TokenInput {
  name: string;
  remain_quota: number;
  expired_time: number;
  unlimited_quota: boolean;
  model_limits_enabled: boolean;
  model_limits: string;
  allow_ips: string;
  group: string;
}

export interface UsableGroup {
  ratio: number;
  desc: string;
}

export interface TokenListQuery {
  /** 1-based page in the UI; the API's `p` is 0-based. */
  page: number;
  size: number;
}

export interface TokenSearchQuery {
  keyword: string;
  token: string;
}

export const tokenKeys = {
  all: ['tokens'] as const,
  list: (query: TokenListQuery) => ['tokens', 'list', query] as const,
  search: (query: TokenSearchQuery) => ['tokens', 'search', query] as const,
  detail: (id: number) => ['tokens', 'detail', id] as const,
  models: ['user', 'models'] as const,
  groups: ['user', 'self', 'groups'] as const,
};

const asArray = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);

/** List style (console-api.md §5): a plain array, `size` not `page_size`, 0-based `p`, no total. */
export async function fetchTokens({ page, size }: TokenListQuery): Promise<Token[]> {
  return asArray<Token>(await api.get('/api/token/', { p: page - 1, size }));
}

export async function searchTokens({ keyword, token }: TokenSearchQuery): Promise<Token[]> {
  // Users paste keys with the prefix they copied; the server stores them without it.
  return asArray<Token>(await api.get('/api/token/search', { keyword, token: token.replace(/^sk-/, '') }));
}

export function fetchToken(id: number): Promise<Token> {
  return api.get<Token>(`/api/token/${id}`);
}

export function createToken(input: TokenInput): Promise<unknown> {
  return api.post('/api/token/', input);
}

export function updateToken(token: TokenInput & { id: number }): Promise<unknown> {
  return api.put('/api/token/', token);
}

export function setTokenStatus(id: number, status: number): Promise<Token> {
  return api.put<Token>('/api/token/', { id, status }, { params: { status_only: true } });
}

export function deleteToken(id: number): Promise<unknown> {
  return api.delete(`/api/token/${id}/`);
}

export async function fetchUserModels(): Promise<string[]> {
  return asArray<string>(await api.get('/api/user/models'));
}

export async function fetchUserGroups(): Promise<Record<string, UsableGroup>> {
  const groups = await api.get<Record<string, UsableGroup>>('/api/user/self/groups');
  return groups && typeof groups === 'object' ? groups : {};
}

/** Total for a list-style pager: one extra item while the last page was full, so "next" exists. */
export function listStyleTotal(page: number, size: number, received: number): number {
  return (page - 1) * size + received + (received >= size ? 1 : 0);
}

export function fullKey(token: Pick<Token, 'key'>): string {
  return `sk-${token.key}`;
}

export function maskKey(token: Pick<Token, 'key'>): string {
  const key = token.key ?? '';
  if (key.length <= 8) return `sk-${key}`;
  return `sk-${key.slice(0, 4)}…${key.slice(-4)}`;
}

/** "name    sk-key" per line, the reference's copy-selected format. */
export function formatTokensForCopy(tokens: Pick<Token, 'name' | 'key'>[]): string {
  return tokens.map((token) => `${token.name}    ${fullKey(token)}`).join('\n');
}
