import { DeleteOutlined } from '@ant-design/icons';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, DatePicker, Modal, Typography } from 'antd';
import dayjs, { type Dayjs } from '../../../lib/dayjs';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { showError, showSuccess } from '../../../lib/feedback';
import { clearLogs, logKeys } from '../api';

/** Admin: delete rows older than a chosen date-time (default one month ago, spec §9). */
export function ClearLogsButton() {
  const { t } = useTranslation('log');
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [before, setBefore] = useState<Dayjs | null>(null);

  const clear = useMutation({
    mutationFn: (at: Dayjs) => clearLogs(at.unix()),
    onSuccess: (count) => {
      showSuccess(t('clear.done', { count }));
      setOpen(false);
    },
    onError: (error) => showError(`${t('clear.failed')}${error instanceof Error ? error.message : String(error)}`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: logKeys.all }),
  });

  return (
    <>
      <Button
        danger
        icon={<DeleteOutlined aria-hidden />}
        onClick={() => {
          setBefore(dayjs().subtract(1, 'month'));
          setOpen(true);
        }}
      >
        {t('clear.button')}
      </Button>
      <Modal
        open={open}
        title={t('clear.title')}
        okText={t('clear.confirm')}
        okButtonProps={{ danger: true, disabled: !before, loading: clear.isPending }}
        cancelText={t('common:action.cancel')}
        onCancel={() => setOpen(false)}
        onOk={() => {
          if (!before) return showError(t('clear.pickTime'));
          clear.mutate(before);
        }}
        destroyOnHidden
      >
        <Typography.Paragraph>{t('clear.description')}</Typography.Paragraph>
        <DatePicker
          showTime
          value={before}
          onChange={setBefore}
          format="YYYY-MM-DD HH:mm:ss"
          className="mg-full-width"
          aria-label={t('clear.before')}
          placeholder={t('clear.before')}
        />
      </Modal>
    </>
  );
}
