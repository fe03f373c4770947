import { CopyOutlined, SwapOutlined } from '@ant-design/icons';
import { useQuery } from '@tanstack/react-query';
import { Button, Card, Col, Input, Row, Space, Statistic } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useStatus } from '../../../app/status';
import { copyText } from '../../../lib/clipboard';
import { formatQuota } from '@modelgate/shared';
import { fetchAffCode, inviteLink, settingKeys, type SelfUser } from '../api';
import { AffTransferModal } from './aff-transfer-modal';

export function InviteCard({ user }: { user: SelfUser | undefined }) {
  const { t } = useTranslation('setting');
  const { quotaDisplay } = useStatus();
  const code = useQuery({ queryKey: settingKeys.affCode, queryFn: fetchAffCode });
  const link = code.data ? inviteLink(window.location.origin, code.data) : '';
  const [transferring, setTransferring] = useState(false);
  const pending = user?.aff_quota ?? 0;

  return (
    <Card title={t('invite.title')}>
      <Space orientation="vertical" size="middle" className="mg-stack">
        <Space.Compact block>
          <Input value={link} readOnly placeholder={t('invite.loading')} aria-label={t('invite.link')} data-testid="invite-link" />
          <Button
            type="primary"
            icon={<CopyOutlined aria-hidden />}
            disabled={!link}
            onClick={() => void copyText(link, t('invite.copied'))}
          >
            {t('common:action.copy')}
          </Button>
        </Space.Compact>
        <Row gutter={[16, 16]}>
          <Col xs={12} sm={8}>
            <Statistic title={t('invite.count')} value={user?.aff_count ?? 0} />
          </Col>
          <Col xs={12} sm={8}>
            <Statistic title={t('invite.pending')} value={formatQuota(user?.aff_quota ?? 0, quotaDisplay)} />
          </Col>
          <Col xs={12} sm={8}>
            <Statistic title={t('invite.total')} value={formatQuota(user?.aff_history_quota ?? 0, quotaDisplay)} />
          </Col>
        </Row>
        <Button icon={<SwapOutlined aria-hidden />} disabled={!user || pending <= 0} onClick={() => setTransferring(true)}>
          {t('invite.transfer')}
        </Button>
      </Space>
      <AffTransferModal open={transferring} pending={pending} onClose={() => setTransferring(false)} />
    </Card>
  );
}
