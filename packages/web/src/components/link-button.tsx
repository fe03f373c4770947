import { Button, type ButtonProps } from 'antd';
import type { MouseEvent } from 'react';
import { useHref, useNavigate } from 'react-router';

/**
 * An antd button that is a real link (`<a href>`), navigating client-side. Wrapping a `<button>`
 * in a `<Link>` would nest interactive elements, which screen readers and tests trip over.
 */
export function LinkButton({ to, onClick, ...props }: Omit<ButtonProps, 'href'> & { to: string }) {
  const navigate = useNavigate();
  const href = useHref(to);
  const handleClick = (event: MouseEvent<HTMLElement>) => {
    onClick?.(event);
    // Let the browser handle new-tab / new-window clicks.
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    // The router reports a failed navigation on its error route; there is nothing to await here.
    void navigate(to);
  };
  return <Button {...props} href={href} onClick={handleClick} />;
}
