import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { LoadingOutlined } from '@ant-design/icons';
import { App as AntApp, ConfigProvider, theme as antTheme } from 'antd';
import enUS from 'antd/locale/en_US';
import zhCN from 'antd/locale/zh_CN';
import { useState, type ReactNode } from 'react';
import { registerFeedback } from '../lib/feedback';
import { PreferencesProvider, usePreferences } from './preferences';
import { SessionProvider } from './session';
import { StatusProvider } from './status';

export function createQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: {
      // The API client already toasted the failure; a silent retry would only toast it twice.
      queries: { retry: false, refetchOnWindowFocus: false },
      mutations: { retry: false },
    },
  });
}

/** Hands the theme- and locale-aware message/modal instances to non-component code. */
function FeedbackBridge({ children }: { children: ReactNode }) {
  const { message, modal } = AntApp.useApp();
  // Registered during render (idempotent) so children's first effects can already toast.
  registerFeedback(message, modal);
  return <>{children}</>;
}

function ThemedShell({ children }: { children: ReactNode }) {
  const { theme, language } = usePreferences();
  return (
    <ConfigProvider
      locale={language === 'zh' ? zhCN : enUS}
      // antd would render two-character Chinese labels as "登 录"; keep the copy as written.
      // A spinner without antd's width animation: when a request ends within the animation, the
      // leaving icon could stay in the DOM (hidden, but read out), naming the button "loading …".
      button={{ autoInsertSpace: false, loadingIcon: <LoadingOutlined /> }}
      theme={{
        algorithm: theme === 'dark' ? antTheme.darkAlgorithm : antTheme.defaultAlgorithm,
        token: { colorPrimary: '#1677ff' },
      }}
    >
      {/* Toasts start below the 56 px header and drawer title bars, which they used to cover. */}
      <AntApp message={{ top: 64 }}>
        <FeedbackBridge>{children}</FeedbackBridge>
      </AntApp>
    </ConfigProvider>
  );
}

export function Providers({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? createQueryClient());
  return (
    <QueryClientProvider client={client}>
      <PreferencesProvider>
        <ThemedShell>
          <SessionProvider>
            <StatusProvider>{children}</StatusProvider>
          </SessionProvider>
        </ThemedShell>
      </PreferencesProvider>
    </QueryClientProvider>
  );
}
