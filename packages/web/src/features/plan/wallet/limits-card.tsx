import type { WindowMeter } from '@modelgate/shared';
import { Card } from 'antd';
import { useTranslation } from 'react-i18next';
import { WindowMeters } from '../../../components/window-meters';

/** The signed-in user's own periodic limits as meters (a plan's are shown with the plan); nothing when there are none. */
export function LimitsCard({ windows }: { windows: readonly WindowMeter[] | undefined }) {
  const { t } = useTranslation('limits');
  const own = (windows ?? []).filter((w) => w.scope === 'user');
  if (!own.length) return null;
  return (
    <Card title={t('meters.title')} data-testid="own-limits">
      <WindowMeters meters={own} />
    </Card>
  );
}
