import { useMutation, useQueryClient } from '@tanstack/react-query';
import { Button, Card, Input, Modal, Typography } from 'antd';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useNavigate } from 'react-router';
import { useSession } from '../../../app/session';
import { showError, showSuccess } from '../../../lib/feedback';
import { deleteSelf } from '../api';

export function DeleteAccountCard() {
  const { t } = useTranslation('setting');
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  const [open, setOpen] = useState(false);
  const [typed, setTyped] = useState('');

  const mutation = useMutation({
    mutationFn: deleteSelf,
    onSuccess: async () => {
      showSuccess(t('delete.done'));
      setOpen(false);
      await signOut();
      queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'status' });
      await navigate('/login');
    },
  });

  const confirm = () => {
    // Typing the exact account name is the guard against deleting the wrong account (spec §5).
    if (!user || typed !== user.username) {
      showError(t('delete.typeName'));
      return;
    }
    mutation.mutate();
  };

  return (
    <Card title={t('delete.title')}>
      <Typography.Paragraph type="secondary">{t('delete.hint')}</Typography.Paragraph>
      <Button danger onClick={() => setOpen(true)}>
        {t('delete.button')}
      </Button>
      <Modal
        open={open}
        title={t('delete.confirmTitle')}
        okText={t('delete.confirm')}
        okButtonProps={{ danger: true, loading: mutation.isPending }}
        onOk={confirm}
        onCancel={() => setOpen(false)}
        destroyOnHidden
        afterClose={() => setTyped('')}
      >
        <Typography.Paragraph>{t('delete.warning')}</Typography.Paragraph>
        <Input
          value={typed}
          onChange={(event) => setTyped(event.target.value)}
          placeholder={t('delete.placeholder', { username: user?.username ?? '' })}
          aria-label={t('delete.placeholder', { username: user?.username ?? '' })}
        />
      </Modal>
    </Card>
  );
}
