import { Button, Col, Form, Input, Row } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { OptionMap } from '../../../../lib/options';
import { pretty, RATIO_KEYS, type RatioKey, type RatioTables } from './ratio-tables';
import { useSaveTables } from './save-tables';

/** The "model ratio" tab: the pricing options as JSON text, validated by the server's rules and saved pretty-printed. */
export function RatioJsonEditor({ options, tables }: { options: OptionMap; tables: RatioTables }) {
  const { t } = useTranslation('pricing');
  const [edits, setEdits] = useState<Partial<Record<RatioKey, string>>>({});
  const { save, saving } = useSaveTables(options);
  const text = (key: RatioKey) => edits[key] ?? pretty(tables[key]);

  const onSave = async () => {
    if (await save(Object.fromEntries(RATIO_KEYS.map((key) => [key, text(key)])) as Record<RatioKey, string>)) setEdits({});
  };

  return (
    <Form layout="vertical" name="ratio-json" component="div">
      <Row gutter={[16, 0]}>
        {RATIO_KEYS.map((key) => (
          <Col key={key} xs={24} xl={8}>
            <Form.Item label={t(`editor.field.${key}`)} htmlFor={`ratio-json-${key}`} extra={t(`editor.hint.${key}`)}>
              <Input.TextArea
                id={`ratio-json-${key}`}
                className="mg-mono"
                autoSize={{ minRows: 10, maxRows: 24 }}
                value={text(key)}
                onChange={(e) => setEdits((cur) => ({ ...cur, [key]: e.target.value }))}
              />
            </Form.Item>
          </Col>
        ))}
      </Row>
      <Button type="primary" loading={saving} onClick={() => void onSave()}>
        {t('editor.saveJson')}
      </Button>
    </Form>
  );
}
