import { Card, Typography } from 'antd';
import type { ReactNode } from 'react';

interface AuthCardProps {
  title: string;
  children: ReactNode;
  footer?: ReactNode;
}

/** The centred card shared by the sign-in, register and reset screens. */
export function AuthCard({ title, children, footer }: AuthCardProps) {
  return (
    <div className="mg-auth">
      <Card className="mg-auth-card">
        <Typography.Title level={3} className="mg-auth-title">
          {title}
        </Typography.Title>
        {children}
        {footer && <div className="mg-auth-footer">{footer}</div>}
      </Card>
    </div>
  );
}
