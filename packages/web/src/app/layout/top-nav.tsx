import { AppstoreOutlined, DollarOutlined, HomeOutlined, InfoCircleOutlined, MenuOutlined } from '@ant-design/icons';
import { Button, Layout, Menu, theme } from 'antd';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { Brand } from './brand';
import { HeaderActions } from './header-actions';

/** Top-level destinations (spec §2 top nav). */
const TOP_NAV = [
  { key: '/', labelKey: 'nav.home', icon: <HomeOutlined /> },
  { key: '/token', labelKey: 'nav.console', icon: <AppstoreOutlined /> },
  { key: '/pricing', labelKey: 'nav.pricing', icon: <DollarOutlined /> },
  { key: '/about', labelKey: 'nav.about', icon: <InfoCircleOutlined /> },
];

function selectedTopKey(pathname: string): string[] {
  if (pathname === '/') return ['/'];
  if (pathname.startsWith('/about')) return ['/about'];
  if (pathname.startsWith('/pricing')) return ['/pricing'];
  // /user/reset is the public reset-confirm page, not part of the console.
  if (pathname === '/user/reset') return [];
  if (['/token', '/user', '/setting'].some((section) => pathname === section || pathname.startsWith(`${section}/`))) {
    return ['/token'];
  }
  return [];
}

/** `onToggleNav` is set on phones, where the side nav is an overlay opened from here. */
export function TopNav({ onToggleNav }: { onToggleNav?: () => void }) {
  const { t } = useTranslation();
  const { pathname } = useLocation();
  const { token } = theme.useToken();
  return (
    <Layout.Header
      className="mg-header"
      style={{ background: token.colorBgContainer, borderBottom: `1px solid ${token.colorBorderSecondary}` }}
    >
      {onToggleNav && (
        <Button type="text" icon={<MenuOutlined />} aria-label={t('nav.toggle')} onClick={onToggleNav} data-testid="nav-toggle" />
      )}
      <Brand />
      <Menu
        mode="horizontal"
        className="mg-top-menu"
        selectedKeys={selectedTopKey(pathname)}
        items={TOP_NAV.map((item) => ({
          key: item.key,
          icon: item.icon,
          label: <Link to={item.key}>{t(item.labelKey)}</Link>,
        }))}
      />
      <HeaderActions />
    </Layout.Header>
  );
}
