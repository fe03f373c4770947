import { useQueryClient } from '@tanstack/react-query';
import { Empty, Typography } from 'antd';
import { useEffect, useState, useSyncExternalStore, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { rateLimitedUntil, subscribeRateLimit } from '../lib/rate-limit-state';

/**
 * A list's empty state. While the server is refusing us (429) an empty list means "not loaded", not
 * "nothing there": say so with the seconds left, then reload the lists that failed.
 */
export function ListEmpty({ description }: { description: ReactNode }) {
  const { t } = useTranslation('common');
  const queryClient = useQueryClient();
  const until = useSyncExternalStore(subscribeRateLimit, rateLimitedUntil);
  const [now, setNow] = useState(() => Date.now());
  const left = Math.ceil((until - now) / 1000);

  useEffect(() => {
    if (until <= Date.now()) return;
    const timer = setInterval(() => {
      setNow(Date.now());
      if (Date.now() >= until) {
        clearInterval(timer);
        void queryClient.refetchQueries({ type: 'active', predicate: (query) => query.state.status === 'error' });
      }
    }, 1000);
    // `now` may date from before this limit: correct it at once rather than a second later.
    const first = setTimeout(() => setNow(Date.now()), 0);
    return () => {
      clearInterval(timer);
      clearTimeout(first);
    };
  }, [until, queryClient]);

  if (left > 0) {
    return (
      <Empty
        image={Empty.PRESENTED_IMAGE_SIMPLE}
        description={
          <Typography.Text type="warning" data-testid="list-rate-limited">
            {t('error.tooManyRequestsRetry', { seconds: left })}
          </Typography.Text>
        }
      />
    );
  }
  return <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={description} />;
}
