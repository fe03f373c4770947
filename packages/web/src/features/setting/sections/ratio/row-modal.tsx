import { Form, Input, Modal } from 'antd';
import { useEffect } from 'react';
import { useTranslation } from 'react-i18next';
import { isNumberText, type RatioRow } from './ratio-tables';

interface Props {
  /** The row being edited, a new row (name possibly prefilled), or null when closed. */
  row: RatioRow | null;
  /** True when `row` is an existing model (its name may stay as it is). */
  editing: boolean;
  /** Model names already in the table. */
  taken: ReadonlySet<string>;
  onCancel: () => void;
  onSubmit: (row: RatioRow) => void;
}

/** Add or edit one model's price: numbers only, no duplicate names; a fixed price disables the ratios (spec §4, §5). */
export function RatioRowModal({ row, editing, taken, onCancel, onSubmit }: Props) {
  const { t } = useTranslation('pricing');
  const [form] = Form.useForm<RatioRow>();
  const price = Form.useWatch('price', form) ?? '';
  const fixed = price.trim() !== '';

  useEffect(() => {
    if (row) form.setFieldsValue(row);
  }, [row, form]);

  const numberRule = { validator: (_: unknown, v: string | undefined) => (isNumberText(v ?? '') ? Promise.resolve() : Promise.reject(new Error(t('editor.notNumber')))) };

  const submit = async () => {
    const values = await form.validateFields();
    const name = values.name.trim();
    const ratio = (v: string | undefined) => (fixed ? '' : (v ?? '').trim());
    onSubmit({
      name,
      price: (values.price ?? '').trim(),
      ratio: ratio(values.ratio),
      completionRatio: ratio(values.completionRatio),
      cacheRatio: ratio(values.cacheRatio),
      createCacheRatio: ratio(values.createCacheRatio),
    });
  };

  return (
    <Modal
      open={row !== null}
      title={editing ? t('editor.editTitle', { name: row?.name ?? '' }) : t('editor.addTitle')}
      okText={t('editor.confirm')}
      cancelText={t('editor.cancel')}
      onOk={() => void submit().catch(() => undefined)}
      onCancel={onCancel}
      destroyOnHidden
      forceRender
    >
      <Form form={form} layout="vertical" name="ratio-row" preserve={false}>
        <Form.Item
          name="name"
          label={t('editor.name')}
          rules={[
            { required: true, whitespace: true, message: t('editor.nameRequired') },
            {
              validator: (_, v: string | undefined) => {
                const name = (v ?? '').trim();
                if (editing && name === row?.name) return Promise.resolve();
                return taken.has(name) ? Promise.reject(new Error(t('editor.duplicate'))) : Promise.resolve();
              },
            },
          ]}
        >
          <Input disabled={editing} />
        </Form.Item>
        <Form.Item name="price" label={t('editor.price')} extra={t('editor.priceHint')} rules={[numberRule]}>
          <Input inputMode="decimal" />
        </Form.Item>
        <Form.Item name="ratio" label={t('editor.ratio')} extra={t('editor.ratioHint')} rules={[numberRule]}>
          <Input inputMode="decimal" disabled={fixed} />
        </Form.Item>
        <Form.Item name="completionRatio" label={t('editor.completionRatio')} extra={t('editor.completionRatioHint')} rules={[numberRule]}>
          <Input inputMode="decimal" disabled={fixed} />
        </Form.Item>
        <Form.Item name="cacheRatio" label={t('editor.cacheRatio')} extra={t('editor.cacheRatioHint')} rules={[numberRule]}>
          <Input inputMode="decimal" disabled={fixed} />
        </Form.Item>
        <Form.Item name="createCacheRatio" label={t('editor.createCacheRatio')} extra={t('editor.createCacheRatioHint')} rules={[numberRule]}>
          <Input inputMode="decimal" disabled={fixed} />
        </Form.Item>
      </Form>
    </Modal>
  );
}
