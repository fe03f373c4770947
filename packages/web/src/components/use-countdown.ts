import { useCallback, useEffect, useState } from 'react';

/** Seconds left before a code/e-mail may be requested again (spec §4: 30 s). */
export function useCountdown(seconds = 30) {
  const [left, setLeft] = useState(0);

  useEffect(() => {
    if (left <= 0) return;
    const timer = setTimeout(() => setLeft((value) => value - 1), 1000);
    return () => clearTimeout(timer);
  }, [left]);

  const start = useCallback(() => setLeft(seconds), [seconds]);
  return { left, active: left > 0, start };
}
