import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { Button, Card } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useSession } from '../../app/session';
import { showSuccess } from '../../lib/feedback';
import { isRoot } from '../../lib/roles';
import { deletePlan, fetchPlans, planKeys, type Plan } from './api';
import { GrantModal } from './components/grant-modal';
import { PlanDrawer } from './components/plan-drawer';
import { PlanTable } from './components/plan-table';
import { TimeZoneSetting } from './components/time-zone-setting';
import './plan.css';

/** Plans (issue 32, admin): what is sold, granting one to a user, and the time zone windows are counted in. */
export default function PlanPage() {
  const { t } = useTranslation('plan');
  const { user } = useSession();
  const queryClient = useQueryClient();
  const [drawer, setDrawer] = useState<{ open: boolean; plan: Plan | null }>({ open: false, plan: null });
  const [granting, setGranting] = useState<Plan | null>(null);
  const list = useQuery({ queryKey: planKeys.list, queryFn: fetchPlans });
  const remove = useMutation({
    mutationFn: (p: Plan) => deletePlan(p.id),
    onSuccess: () => showSuccess(t('action.deleted')),
    onSettled: () => queryClient.invalidateQueries({ queryKey: planKeys.all }),
  });

  return (
    <Card
      title={t('title')}
      className="mg-page-card"
      extra={
        <Button type="primary" onClick={() => setDrawer({ open: true, plan: null })}>
          {t('add')}
        </Button>
      }
    >
      {isRoot(user) && <TimeZoneSetting />}
      <PlanTable
        plans={list.data ?? []}
        loading={list.isFetching}
        onEdit={(plan) => setDrawer({ open: true, plan })}
        onDelete={(plan) => remove.mutate(plan)}
        onGrant={setGranting}
      />
      <PlanDrawer open={drawer.open} plan={drawer.plan} onClose={() => setDrawer((d) => ({ ...d, open: false }))} />
      <GrantModal plan={granting} plans={list.data ?? []} onClose={() => setGranting(null)} />
    </Card>
  );
}
