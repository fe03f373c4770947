import { Space } from 'antd';
import type { ReactNode } from 'react';
import { AboutSection } from './about-section';
import { BrandingSection } from './branding-section';
import { ChatsSection } from './chats-section';
import { DashboardSection } from './dashboard-section';
import { DiscordSection } from './discord-section';
import { DrawingSection } from './drawing-section';
import { EmailDomainSection } from './email-domain-section';
import { FooterSection } from './footer-section';
import { GeneralSection } from './general-section';
import { GitHubSection } from './github-section';
import { GroupsSection } from './groups-section';
import { HomeContentSection } from './home-content-section';
import { LinuxDoSection } from './linuxdo-section';
import { LoginSection } from './login-section';
import { LogsSection } from './logs-section';
import { MonitoringSection } from './monitoring-section';
import { NoticeSection } from './notice-section';
import { OidcSection } from './oidc-section';
import { PaymentSection } from './payment-section';
import { QuotaSection } from './quota-section';
import { RatioSection } from './ratio-section';
import { SensitiveSection } from './sensitive-section';
import { ServerSection } from './server-section';
import { SmtpSection } from './smtp-section';
import { StripeSection } from './stripe-section';
import { TelegramSection } from './telegram-section';
import { TurnstileSection } from './turnstile-section';
import { WeChatSection } from './wechat-section';
import { WorkerSection } from './worker-section';

const Stack = ({ children }: { children: ReactNode }) => (
  <Space orientation="vertical" size="middle" className="mg-stack">
    {children}
  </Space>
);

/** Spec §2.6 operation tab, in the reference's order. */
export function OperationTab() {
  return (
    <Stack>
      <GeneralSection />
      <DrawingSection />
      <SensitiveSection />
      <LogsSection />
      <DashboardSection />
      <MonitoringSection />
      <QuotaSection />
      <ChatsSection />
      <GroupsSection />
      <RatioSection />
    </Stack>
  );
}

/** Spec §2.6 system tab. */
export function SystemTab() {
  return (
    <Stack>
      <ServerSection />
      <WorkerSection />
      <PaymentSection />
      <StripeSection />
      <LoginSection />
      <EmailDomainSection />
      <SmtpSection />
      <GitHubSection />
      <LinuxDoSection />
      <OidcSection />
      <DiscordSection />
      <WeChatSection />
      <TelegramSection />
      <TurnstileSection />
    </Stack>
  );
}

/** Spec §2.6 other tab: site content. */
export function OtherTab() {
  return (
    <Stack>
      <NoticeSection />
      <BrandingSection />
      <HomeContentSection />
      <AboutSection />
      <FooterSection />
    </Stack>
  );
}
