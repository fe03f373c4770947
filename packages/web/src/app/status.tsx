import { useQuery } from '@tanstack/react-query';
import { createContext, useContext, useEffect, useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { ApiError, callEnvelope } from '../lib/api';
import { showError } from '../lib/feedback';
import { quotaDisplayFromStatus, type QuotaDisplay } from '@modelgate/shared';
import { getStoredStatus, saveStatus, type StoredStatus } from '../lib/storage';

export const statusQueryKey = ['status'] as const;

export class StatusLoadError extends Error {
  constructor(readonly reason: 'unreachable' | 'failed') {
    super(reason);
  }
}

/** GET /api/status; the result is copied into localStorage exactly like the reference (§6). */
export async function fetchStatus(): Promise<StoredStatus> {
  let envelope;
  try {
    envelope = await callEnvelope('GET /api/status', { silent: true });
  } catch (error) {
    throw new StatusLoadError(error instanceof ApiError && error.status === 200 ? 'failed' : 'unreachable');
  }
  if (!envelope.success || !envelope.data || typeof envelope.data !== 'object') {
    throw new StatusLoadError('failed');
  }
  saveStatus(envelope.data);
  return envelope.data;
}

interface StatusValue {
  status: StoredStatus;
  quotaDisplay: QuotaDisplay;
}

const StatusContext = createContext<StatusValue | null>(null);

export function StatusProvider({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const query = useQuery({
    queryKey: statusQueryKey,
    queryFn: fetchStatus,
    // Until the server answers, the last cached status keeps the shell usable (and offline-tolerant).
    placeholderData: getStoredStatus,
    staleTime: 60_000,
    retry: false,
  });

  useEffect(() => {
    if (query.error instanceof StatusLoadError) {
      showError(t(query.error.reason === 'unreachable' ? 'status.unreachable' : 'status.loadFailed'));
    }
  }, [query.error, t]);

  const value = useMemo(() => {
    const status = query.data ?? getStoredStatus();
    return { status, quotaDisplay: quotaDisplayFromStatus(status) };
  }, [query.data]);
  // The tab follows the SystemName option (its hint says so); index.html's title is only the first paint.
  const systemName = value.status.system_name;
  useEffect(() => {
    document.title = (typeof systemName === 'string' && systemName.trim()) || 'ModelGate';
  }, [systemName]);
  return <StatusContext.Provider value={value}>{children}</StatusContext.Provider>;
}

export function useStatus(): StatusValue {
  const value = useContext(StatusContext);
  if (!value) throw new Error('useStatus outside StatusProvider');
  return value;
}
