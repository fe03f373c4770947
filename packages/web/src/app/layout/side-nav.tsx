import {
  AppstoreOutlined,
  AuditOutlined,
  BarChartOutlined,
  CheckSquareOutlined,
  CommentOutlined,
  CreditCardOutlined,
  CrownOutlined,
  ExperimentOutlined,
  GiftOutlined,
  KeyOutlined,
  PictureOutlined,
  SafetyCertificateOutlined,
  SettingOutlined,
  TeamOutlined,
} from '@ant-design/icons';
import { Layout, Menu } from 'antd';
import { useMemo, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { buildSideNav, type NavIcon } from '../nav-items';
import { BUILT_PATHS } from '../router-paths';
import { useSession } from '../session';
import { useStatus } from '../status';

const ICONS: Record<NavIcon, ReactNode> = {
  playground: <ExperimentOutlined />,
  channel: <AppstoreOutlined />,
  chat: <CommentOutlined />,
  token: <KeyOutlined />,
  dashboard: <BarChartOutlined />,
  redemption: <GiftOutlined />,
  plan: <CrownOutlined />,
  wallet: <CreditCardOutlined />,
  user: <TeamOutlined />,
  log: <AuditOutlined />,
  audit: <SafetyCertificateOutlined />,
  drawing: <PictureOutlined />,
  task: <CheckSquareOutlined />,
  setting: <SettingOutlined />,
};
// Kept referenced so an icon for a future entry is one edit away.

const available = (path: string) => BUILT_PATHS.has(path);

interface SideNavProps {
  collapsed: boolean;
  narrow: boolean;
  onCollapse: (collapsed: boolean) => void;
}

export function SideNav({ collapsed, narrow, onCollapse }: SideNavProps) {
  const { t } = useTranslation();
  const { user } = useSession();
  const { status } = useStatus();
  const { pathname } = useLocation();

  const entries = useMemo(() => buildSideNav(user, status, available), [user, status]);
  const selected = entries.find((entry) => pathname === entry.path || pathname.startsWith(`${entry.path}/`));

  return (
    <>
      {narrow && !collapsed && <div className="mg-sider-mask" onClick={() => onCollapse(true)} aria-hidden />}
      <Layout.Sider
        theme="light"
        collapsible
        collapsed={collapsed}
        onCollapse={onCollapse}
        // On phones the header's menu button opens the nav; antd's floating tab would cover content.
        trigger={narrow ? null : undefined}
        collapsedWidth={narrow ? 0 : 64}
        width={200}
        className={narrow ? 'mg-sider mg-sider-overlay' : 'mg-sider'}
        data-testid="side-nav"
      >
        <Menu
          mode="inline"
          selectedKeys={selected ? [selected.key] : []}
          items={entries.map((entry) => ({
            key: entry.key,
            icon: ICONS[entry.icon],
            label: entry.children ? t(entry.labelKey) : <Link to={entry.path}>{t(entry.labelKey)}</Link>,
            children: entry.children?.map((child) => ({
              key: child.key,
              label: <Link to={child.path}>{child.label}</Link>,
            })),
          }))}
        />
      </Layout.Sider>
    </>
  );
}
