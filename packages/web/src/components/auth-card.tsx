import { theme } from 'antd';
import type { ReactNode } from 'react';
import { ShellHeading } from './shell-text';

interface AuthCardProps {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
}

/**
 * The centred card shared by the sign-in, register and reset screens. Drawn with antd's card
 * tokens rather than `Card`, which brings tabs and skeletons along: the sign-in page must stay light
 * (docs/performance.md#console-bundle).
 */
export function AuthCard({ title, children, footer }: AuthCardProps) {
  const { token } = theme.useToken();
  return (
    <div className="mg-auth">
      <section
        className="mg-auth-card"
        style={{
          background: token.colorBgContainer,
          border: `${token.lineWidth}px ${token.lineType} ${token.colorBorderSecondary}`,
          borderRadius: token.borderRadiusLG,
          padding: token.paddingLG,
        }}
      >
        <ShellHeading level={3} className="mg-auth-title">
          {title}
        </ShellHeading>
        {children}
        {footer && <div className="mg-auth-footer">{footer}</div>}
      </section>
    </div>
  );
}
