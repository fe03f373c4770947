import type { CreateTokenBody, Token, UpdateTokenBody, UsableGroup } from '@modelgate/shared/api';
import { call } from '../../lib/api';

export type { Token, UsableGroup };

/** One token's fields as the drawer sends them (the server's request schema, every field set). */

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

const asArray = <T>(value: T[] | null | undefined): T[] => (Array.isArray(value) ? value : []);

/** List style (console-api.md §5): a plain array, `size` not `page_size`, 0-based `p`, no total. */
export async function fetchTokens({ page, size }: TokenListQuery): Promise<Token[]> {
  return asArray(await call('GET /api/token/', { query: { p: page - 1, size } }));
}

export async function searchTokens({ keyword, token }: TokenSearchQuery): Promise<Token[]> {
  // Users paste keys with the prefix they copied; the server stores them without it.
  return asArray(await call('GET /api/token/search', { query: { keyword, token: token.replace(/^sk-/, '') } }));
}

export function fetchToken(id: number): Promise<Token> {
  return call('GET /api/token/:id', { params: { id } });
}

export function createToken(input: CreateTokenBody): Promise<unknown> {
  return call('POST /api/token/', { body: input });
}

export function updateToken(token: UpdateTokenBody): Promise<unknown> {
  return call('PUT /api/token/', { body: token });
}

export function setTokenStatus(id: number, status: number): Promise<Token> {
  return call('PUT /api/token/', { body: { id, status }, query: { status_only: 'true' } });
}

export function deleteToken(id: number): Promise<unknown> {
  return call('DELETE /api/token/:id', { params: { id }, slash: true });
}

/** Fails with the spec's "failed to get model list" (lib/user-models). */
export { fetchUserModels } from '../../lib/user-models';

export async function fetchUserGroups(): Promise<Record<string, UsableGroup>> {
  const groups = await call('GET /api/user/self/groups');
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
