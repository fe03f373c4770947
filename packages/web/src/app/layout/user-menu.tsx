import { DownOutlined, LogoutOutlined, SettingOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Dropdown, Space } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { useSession } from '../session';

/** The signed-in user's header menu (settings, sign out); loaded lazily by `HeaderActions`. */
export function UserMenu() {
  const { t } = useTranslation();
  const { user, signOut } = useSession();
  const navigate = useNavigate();
  const queryClient = useQueryClient();
  if (!user) return null;

  const logout = async () => {
    await signOut();
    // Another user may sign in next in this tab: drop everything cached for this one.
    queryClient.removeQueries({ predicate: (query) => query.queryKey[0] !== 'status' });
    await navigate('/login');
  };

  return (
    <Dropdown
      trigger={['click']}
      menu={{
        items: [
          { key: 'setting', icon: <SettingOutlined />, label: <Link to="/setting">{t('nav.setting')}</Link> },
          { type: 'divider' },
          { key: 'logout', icon: <LogoutOutlined />, label: t('auth.logout'), danger: true, onClick: () => void logout() },
        ],
      }}
    >
      <Button type="text" data-testid="user-menu" className="mg-user-button">
        <Space size={6}>
          <Avatar size="small" icon={<UserOutlined aria-hidden />} />
          <span className="mg-hide-xs">{user.username}</span>
          <DownOutlined aria-hidden style={{ fontSize: 10 }} />
        </Space>
      </Button>
    </Dropdown>
  );
}
