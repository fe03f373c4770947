import { theme } from 'antd';
import type { ReactNode } from 'react';

/**
 * A heading and secondary text drawn with antd's typography tokens, for the parts every page or
 * the sign-in page shows (footer, auth card, route errors). antd's `Typography` brings its
 * editable and copyable machinery (a text area, tooltips) along; screens use it, the shell does not
 * need it (docs/performance.md#console-bundle).
 */
export function ShellHeading({ level, className, children }: { level: 3 | 4; className?: string; children: ReactNode }) {
  const { token } = theme.useToken();
  const Tag = level === 3 ? 'h3' : 'h4';
  return (
    <Tag
      className={className}
      style={{
        // The top margin is the browser's, as with antd's Title.
        marginBottom: '0.5em',
        color: token.colorTextHeading,
        fontWeight: token.fontWeightStrong,
        fontSize: level === 3 ? token.fontSizeHeading3 : token.fontSizeHeading4,
        lineHeight: level === 3 ? token.lineHeightHeading3 : token.lineHeightHeading4,
      }}
    >
      {children}
    </Tag>
  );
}

export function SecondaryText({ className, children }: { className?: string; children: ReactNode }) {
  const { token } = theme.useToken();
  return (
    <span className={className} style={{ color: token.colorTextSecondary }}>
      {children}
    </span>
  );
}
