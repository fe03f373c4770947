import { Button, Descriptions, Popover, Table, Typography } from 'antd';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { AuditEntry } from '../api';
import { orderedRequest, useAuditText } from '../audit-format';

/** What a row shows: the changed fields, or for a call with no before/after (a create, a bulk call) its request fields. */
interface Line {
  key: string;
  label: string;
  before?: ReactNode;
  after: ReactNode;
  changed: boolean;
}

function useLines(entry: AuditEntry): Line[] {
  const text = useAuditText();
  const target = entry.target_type;
  if (entry.changes.length) {
    return entry.changes.map((c) => ({
      key: c.field,
      label: text.fieldLabel(target, c.field, 'change'),
      before: text.valueText(target, c.field, c.before),
      after: text.valueText(target, c.field, c.after),
      changed: true,
    }));
  }
  return orderedRequest(entry.request).map(([field, value]) => ({
    key: field,
    label: text.fieldLabel(target, field, 'request'),
    after: text.valueText(target, field, value),
    changed: false,
  }));
}

/** Everything the entry holds: changes as a before/after table, the request's fields, the answer, the client. */
function AuditDetail({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation('audit');
  const text = useAuditText();
  const target = entry.target_type;
  const changes = entry.changes.map((c) => ({ key: c.field, ...c }));
  return (
    <div className="mg-audit-detail" data-testid="audit-detail">
      {changes.length > 0 && (
        <>
          <Typography.Title level={5}>{t('detail.changes')}</Typography.Title>
          <Table
            size="small"
            pagination={false}
            rowKey="key"
            dataSource={changes}
            columns={[
              { title: t('detail.field'), key: 'field', render: (_, c) => text.fieldLabel(target, c.field, 'change') },
              { title: t('detail.before'), key: 'before', render: (_, c) => text.valueText(target, c.field, c.before) },
              { title: t('detail.after'), key: 'after', render: (_, c) => text.valueText(target, c.field, c.after) },
            ]}
          />
          {entry.changes_truncated > 0 && <Typography.Text type="secondary">{t('detail.truncated', { count: entry.changes_truncated })}</Typography.Text>}
        </>
      )}
      <Typography.Title level={5}>{t('detail.request')}</Typography.Title>
      <Descriptions size="small" column={1} bordered>
        {orderedRequest(entry.request).map(([field, value]) => (
          <Descriptions.Item key={field} label={text.fieldLabel(target, field, 'request')}>
            {text.valueText(target, field, value)}
          </Descriptions.Item>
        ))}
        {entry.result !== undefined && <Descriptions.Item label={t('detail.result')}>{text.valueText(target, 'result', entry.result)}</Descriptions.Item>}
        {!entry.success && <Descriptions.Item label={t('detail.message')}>{entry.message}</Descriptions.Item>}
        <Descriptions.Item label={t('detail.userAgent')}>{entry.user_agent || '—'}</Descriptions.Item>
      </Descriptions>
    </div>
  );
}

/** The changes column: the first two lines, a count of the rest, and the whole entry in a popover. */
export function AuditChangesCell({ entry }: { entry: AuditEntry }) {
  const { t } = useTranslation('audit');
  const lines = useLines(entry);
  const shown = lines.slice(0, 2);
  const rest = lines.length - shown.length + entry.changes_truncated;
  return (
    <div className="mg-audit-changes">
      <ul className="mg-audit-lines">
        {shown.map((line) => (
          <li key={line.key}>
            <span className="mg-audit-field">{line.label}</span>
            {line.changed && (
              <>
                <span className="mg-audit-value">{line.before}</span>
                <span aria-hidden className="mg-audit-arrow">
                  →
                </span>
              </>
            )}
            <span className="mg-audit-value">{line.after}</span>
          </li>
        ))}
        {!lines.length && <li className="mg-audit-none">{t('detail.none')}</li>}
      </ul>
      <Popover trigger="click" placement="left" title={t('detail.title')} content={<AuditDetail entry={entry} />} destroyOnHidden>
        <Button type="link" size="small" className="mg-flush">
          {rest > 0 ? `${t('detail.more', { count: rest })} · ${t('detail.open')}` : t('detail.open')}
        </Button>
      </Popover>
    </div>
  );
}
