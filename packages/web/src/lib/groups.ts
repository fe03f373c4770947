import { useQuery } from '@tanstack/react-query';
import { call } from './api';

/**
 * Group names from GroupRatio (`GET /api/group/`, admin only), shared by every screen that offers
 * a group filter or picker. Optional: if the call fails, the pickers are simply empty.
 */
export async function fetchGroups(): Promise<string[]> {
  try {
    const groups = await call('GET /api/group/', { silent: true });
    return Array.isArray(groups) ? groups : [];
  } catch {
    return [];
  }
}

export const groupsQueryKey = ['groups'] as const;

export function useGroups(enabled = true) {
  return useQuery({ queryKey: groupsQueryKey, queryFn: fetchGroups, staleTime: 60_000, enabled });
}
