import { useQuery } from '@tanstack/react-query';
import { Col, Row, Tabs } from 'antd';
import { useTranslation } from 'react-i18next';
import { useSearchParams } from 'react-router';
import { fetchSelf, settingKeys } from './api';
import { AccessTokenCard } from './components/access-token-card';
import { AccountCard } from './components/account-card';
import { BindingsCard } from './components/bindings-card';
import { DeleteAccountCard } from './components/delete-account-card';
import { InviteCard } from './components/invite-card';
import { PasswordCard } from './components/password-card';

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

/** Settings, tab chosen by ?tab= (spec §2). Operation, system and other tabs (root) come later. */
export default function SettingPage() {
  const { t } = useTranslation('setting');
  const [params, setParams] = useSearchParams();
  const items = [{ key: 'personal', label: t('tabs.personal'), children: <PersonalTab /> }];
  const active = items.some((item) => item.key === params.get('tab')) ? params.get('tab')! : 'personal';
  return (
    <Tabs
      activeKey={active}
      items={items}
      onChange={(key) => setParams({ tab: key }, { replace: true })}
    />
  );
}
