import { DownOutlined, LogoutOutlined, MoonOutlined, SettingOutlined, SunOutlined, TranslationOutlined, UserOutlined } from '@ant-design/icons';
import { useQueryClient } from '@tanstack/react-query';
import { Avatar, Button, Dropdown, Space, Tooltip } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate } from 'react-router';
import { LinkButton } from '../../components/link-button';
import { LANGUAGES } from '../../i18n';
import { usePreferences } from '../preferences';
import { useSession } from '../session';

function ThemeSwitch() {
  const { t } = useTranslation();
  const { theme, setTheme } = usePreferences();
  const label = theme === 'dark' ? t('theme.toLight') : t('theme.toDark');
  return (
    <Tooltip title={label}>
      <Button
        type="text"
        aria-label={label}
        data-testid="theme-switch"
        data-theme={theme}
        icon={theme === 'dark' ? <SunOutlined /> : <MoonOutlined />}
        onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
      />
    </Tooltip>
  );
}

function LanguageSwitch() {
  const { t } = useTranslation();
  const { language, setLanguage } = usePreferences();
  return (
    <Dropdown
      trigger={['click']}
      menu={{
        selectable: true,
        selectedKeys: [language],
        items: LANGUAGES.map((lang) => ({ key: lang, label: t(`language.${lang}`) })),
        onClick: ({ key }) => setLanguage(key as (typeof LANGUAGES)[number]),
      }}
    >
      <Button type="text" data-testid="language-switch" aria-label={t('language.switch')} icon={<TranslationOutlined />}>
        <span className="mg-hide-xs">{t(`language.${language}`)}</span>
      </Button>
    </Dropdown>
  );
}

function UserMenu() {
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

export function HeaderActions() {
  const { t } = useTranslation();
  const { user } = useSession();
  return (
    <Space size={4} className="mg-header-actions">
      <ThemeSwitch />
      <LanguageSwitch />
      {user ? (
        <UserMenu />
      ) : (
        <Space size={4}>
          <LinkButton to="/login" type="text">
            {t('auth.login')}
          </LinkButton>
          <LinkButton to="/register" type="primary" className="mg-hide-xs">
            {t('auth.register')}
          </LinkButton>
        </Space>
      )}
    </Space>
  );
}
