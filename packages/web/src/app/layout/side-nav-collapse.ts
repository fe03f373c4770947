import { useCallback, useEffect, useRef, useState } from 'react';
import { useLocation } from 'react-router';
import { useStatus } from '../status';

/** Collapsed state: starts from status.default_collapse_sidebar; on phones the nav is an overlay. */
export function useSideNavCollapse(narrow: boolean) {
  const { status } = useStatus();
  const { pathname } = useLocation();
  const defaultCollapsed = status.default_collapse_sidebar === true || String(status.default_collapse_sidebar) === 'true';
  const [collapsed, setCollapsed] = useState(defaultCollapsed || narrow);
  const touched = useRef(false);

  // The status may arrive after the first render; follow its default until the user toggles.
  useEffect(() => {
    if (!touched.current) setCollapsed(defaultCollapsed || narrow);
  }, [defaultCollapsed, narrow]);

  // On phones the overlay closes once the user picked a destination. Adjusted while rendering
  // rather than in an effect, so the open overlay is never painted over the new page.
  const [seen, setSeen] = useState({ pathname, narrow });
  if (seen.pathname !== pathname || seen.narrow !== narrow) {
    setSeen({ pathname, narrow });
    if (narrow) setCollapsed(true);
  }

  const set = useCallback((value: boolean) => {
    touched.current = true;
    setCollapsed(value);
  }, []);
  return [collapsed, set] as const;
}
