import { useQuery } from '@tanstack/react-query';
import { Alert, Col, Row, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { useSession } from '../../app/session';
import { isRoot } from '../../lib/roles';
import { fetchSelf, settingKeys } from './api';
import { AccessTokenCard } from './components/access-token-card';
import { AccountCard } from './components/account-card';
import { BindingsCard } from './components/bindings-card';
import { DeleteAccountCard } from './components/delete-account-card';
import { InviteCard } from './components/invite-card';
import { ModelsCard } from './components/models-card';
import { PasswordCard } from './components/password-card';
import { SecurityCard } from '../two-factor/security-card';
import { OperationTab, OtherTab, SystemTab } from './sections/tabs';

/** Tabs only the super admin sees (spec §6). */
const ROOT_TABS = ['operation', 'system', 'other'] as const;

function PersonalTab() {
  const self = useQuery({ queryKey: settingKeys.self, queryFn: fetchSelf });
  return (
    <Row gutter={[16, 16]}>
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <AccountCard user={self.data} />
          </Col>
          <Col span={24}>
            <ModelsCard />
          </Col>
          <Col span={24}>
            <InviteCard user={self.data} />
          </Col>
          <Col span={24}>
            <BindingsCard user={self.data} />
          </Col>
        </Row>
      </Col>
      <Col xs={24} xl={12}>
        <Row gutter={[16, 16]}>
          <Col span={24}>
            <SecurityCard />
          </Col>
          <Col span={24}>
            <AccessTokenCard />
          </Col>
          <Col span={24}>
            <PasswordCard />
          </Col>
          <Col span={24}>
            <DeleteAccountCard />
          </Col>
        </Row>
      </Col>
    </Row>
  );
}

/** Settings, tab chosen by ?tab= (spec §2); a tab the role may not see is refused with a message. */
export default function SettingPage() {
  const { t } = useTranslation('setting');
  const { user } = useSession();
  const [params, setParams] = useSearchParams();
  const root = isRoot(user);
  const items = [
    { key: 'personal', label: t('tabs.personal'), children: <PersonalTab /> },
    ...(root
      ? [
          { key: 'operation', label: t('tabs.operation'), children: <OperationTab /> },
          { key: 'system', label: t('tabs.system'), children: <SystemTab /> },
          { key: 'other', label: t('tabs.other'), children: <OtherTab /> },
        ]
      : []),
  ];
  const asked = params.get('tab');
  const active = items.some((item) => item.key === asked) ? asked! : 'personal';
  const denied = !root && (ROOT_TABS as readonly string[]).includes(asked ?? '');
  return (
    <>
      {denied && <Alert type="warning" showIcon className="mg-auth-alert" title={t('tabDenied')} />}
      <Tabs
        activeKey={active}
        items={items}
        destroyOnHidden
        onChange={(key) => setParams({ tab: key }, { replace: true })}
      />
    </>
  );
}
