import { Grid, Layout } from 'antd';
import { lazy, Suspense } from 'react';
import { Outlet, useNavigation } from 'react-router';
import { PageLoading } from '../../components/page-loading';
import { useSession } from '../session';
import { useSideNavCollapse } from './side-nav-collapse';
import { SiteFooter } from './site-footer';
import { TopNav } from './top-nav';

// Only signed-in users see the side nav: its entries and icons load with their first page, not on
// the sign-in page. Until then an empty sider of the same width keeps the content from shifting.
const SideNav = lazy(async () => ({ default: (await import('./side-nav')).SideNav }));

export function AppLayout() {
  const { user } = useSession();
  const narrow = Grid.useBreakpoint().md === false;
  const [collapsed, setCollapsed] = useSideNavCollapse(narrow);
  // The router fetches a screen's chunk on its first visit before it switches to it; the loading
  // state stands in for the screen being left meanwhile (a visited screen switches at once).
  const switching = useNavigation().state === 'loading';
  const sider = { collapsed, collapsedWidth: narrow ? 0 : 64, width: 200, className: narrow ? 'mg-sider mg-sider-overlay' : 'mg-sider' };
  return (
    <Layout className="mg-root">
      <TopNav onToggleNav={user && narrow ? () => setCollapsed(!collapsed) : undefined} />
      <Layout hasSider={!!user}>
        {user && (
          <Suspense fallback={<Layout.Sider theme="light" trigger={null} {...sider} />}>
            <SideNav collapsed={collapsed} narrow={narrow} onCollapse={setCollapsed} />
          </Suspense>
        )}
        <Layout className="mg-main">
          <Layout.Content className="mg-content">
            {switching ? (
              <PageLoading />
            ) : (
              <Suspense fallback={<PageLoading />}>
                <Outlet />
              </Suspense>
            )}
          </Layout.Content>
          <SiteFooter />
        </Layout>
      </Layout>
    </Layout>
  );
}
