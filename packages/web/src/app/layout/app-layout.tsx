import { Grid, Layout } from 'antd';
import { Suspense } from 'react';
import { Outlet } from 'react-router';
import { PageLoading } from '../../components/page-loading';
import { useSession } from '../session';
import { SideNav, useSideNavCollapse } from './side-nav';
import { SiteFooter } from './site-footer';
import { TopNav } from './top-nav';

export function AppLayout() {
  const { user } = useSession();
  const narrow = Grid.useBreakpoint().md === false;
  const [collapsed, setCollapsed] = useSideNavCollapse(narrow);
  return (
    <Layout className="mg-root">
      <TopNav onToggleNav={user && narrow ? () => setCollapsed(!collapsed) : undefined} />
      <Layout hasSider={!!user}>
        {user && <SideNav collapsed={collapsed} narrow={narrow} onCollapse={setCollapsed} />}
        <Layout className="mg-main">
          <Layout.Content className="mg-content">
            <Suspense fallback={<PageLoading />}>
              <Outlet />
            </Suspense>
          </Layout.Content>
          <SiteFooter />
        </Layout>
      </Layout>
    </Layout>
  );
}
