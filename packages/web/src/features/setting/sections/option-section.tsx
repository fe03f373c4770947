import type { OptionKey } from '@modelgate/shared';
import { Button, Card, Col, Form, Input, InputNumber, Row, Select, Switch } from 'antd';
import { QUOTA_INPUT_MAX } from '../../../lib/quota-input';
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useOptionSection, type OptionSectionApi, type SectionCheck } from './use-option-section';

/**
 * How a field is edited: `secret` is write-only (empty keeps the stored value), `json` and
 * `textarea` take full width, `list` is a comma list edited as tags.
 */
export type FieldKind = 'switch' | 'text' | 'secret' | 'number' | 'textarea' | 'json' | 'select' | 'list';

export interface FieldDef {
  key: OptionKey;
  kind: FieldKind;
  /** `select`: the stored values; their labels are `option.<key>.choices.<value>`. */
  choices?: readonly string[];
  min?: number;
  step?: number;
}

const WIDE: ReadonlySet<FieldKind> = new Set(['textarea', 'json', 'list']);

function FieldInput({ field, api, id }: { field: FieldDef; api: OptionSectionApi; id: string }) {
  const { t } = useTranslation('setting');
  const value = api.value(field.key);
  const text = typeof value === 'string' ? value : '';
  const set = (next: string | boolean) => api.set(field.key, next);
  switch (field.kind) {
    case 'switch':
      return <Switch id={id} checked={value === true} onChange={set} />;
    case 'secret':
      return (
        <Input.Password id={id} value={text} autoComplete="new-password" placeholder={t('section.secretPlaceholder')} onChange={(e) => set(e.target.value)} />
      );
    case 'number':
      return (
        <InputNumber
          id={id}
          className="mg-full-width"
          value={text === '' ? null : Number(text)}
          min={field.min}
          // Beyond this a typed number is silently rounded (quota options are whole numbers the server checks exactly).
          max={QUOTA_INPUT_MAX}
          step={field.step}
          onChange={(n) => set(n === null ? '' : String(n))}
        />
      );
    case 'textarea':
    case 'json':
      return (
        <Input.TextArea
          id={id}
          value={text}
          autoSize={{ minRows: field.kind === 'json' ? 6 : 4, maxRows: 16 }}
          className={field.kind === 'json' ? 'mg-mono' : undefined}
          onChange={(e) => set(e.target.value)}
        />
      );
    case 'select':
      return (
        <Select
          id={id}
          value={text}
          options={(field.choices ?? []).map((c) => ({ value: c, label: t(`option.${field.key}.choices.${c}`) }))}
          onChange={set}
        />
      );
    case 'list':
      return (
        <Select
          id={id}
          mode="tags"
          tokenSeparators={[',', ' ']}
          value={text.split(',').map((s) => s.trim()).filter(Boolean)}
          onChange={(list: string[]) => set(list.join(','))}
          open={false}
        />
      );
    default:
      return <Input id={id} value={text} onChange={(e) => set(e.target.value)} />;
  }
}

/** The fields of a section in a responsive grid, each with its label and "what this does" hint. */
export function OptionFields({ fields, api, name }: { fields: readonly FieldDef[]; api: OptionSectionApi; name: string }) {
  const { t } = useTranslation('setting');
  return (
    <Form layout="vertical" name={name} component="div">
      <Row gutter={[16, 0]}>
        {fields.map((field) => {
          const id = `${name}-${field.key}`;
          return (
            <Col key={field.key} xs={24} md={WIDE.has(field.kind) ? 24 : 12} xl={WIDE.has(field.kind) ? 24 : 8}>
              <Form.Item label={t(`option.${field.key}.label`)} htmlFor={id} extra={t(`option.${field.key}.hint`)}>
                <FieldInput field={field} api={api} id={id} />
              </Form.Item>
            </Col>
          );
        })}
      </Row>
    </Form>
  );
}

interface SectionProps {
  /** `section.<name>` is the title; also the form's name. */
  name: string;
  fields: readonly FieldDef[];
  check?: SectionCheck;
  /** Runs before the save; false cancels it (e.g. a confirmation was declined). */
  confirm?: (api: OptionSectionApi) => Promise<boolean>;
  /** Extra content under the fields (a section's own actions). */
  children?: ReactNode;
}

/** One settings section: its own keys, loaded, edited and saved together with one button. */
export function OptionSectionCard({ name, fields, check, confirm, children }: SectionProps) {
  const { t } = useTranslation('setting');
  const api = useOptionSection(
    fields.map((f) => f.key),
    check,
  );
  const onSave = async () => {
    if (confirm && !(await confirm(api))) return;
    await api.save();
  };
  return (
    <Card title={t(`section.${name}`)} loading={api.loading} data-section={name}>
      <OptionFields fields={fields} api={api} name={name} />
      {children}
      <Button type="primary" onClick={() => void onSave()} loading={api.saving}>
        {t('section.save', { name: t(`section.${name}`) })}
      </Button>
    </Card>
  );
}
