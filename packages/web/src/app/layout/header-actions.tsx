import { MoonOutlined, SunOutlined, TranslationOutlined } from '@ant-design/icons';
import { Button, Dropdown, Space, Tooltip } from 'antd';
import { lazy, Suspense } from 'react';
import { useTranslation } from 'react-i18next';
import { LinkButton } from '../../components/link-button';
import { LANGUAGES } from '../../i18n';
import { usePreferences } from '../preferences';
import { useSession } from '../session';

// Only signed-in users have it: its avatar and icons load with their first page, not on sign-in.
const UserMenu = lazy(async () => ({ default: (await import('./user-menu')).UserMenu }));

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

export function HeaderActions() {
  const { t } = useTranslation();
  const { user } = useSession();
  return (
    <Space size={4} className="mg-header-actions">
      <ThemeSwitch />
      <LanguageSwitch />
      {user ? (
        <Suspense fallback={null}>
          <UserMenu />
        </Suspense>
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
