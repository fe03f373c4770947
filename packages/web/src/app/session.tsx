import { createContext, useCallback, useContext, useMemo, useState, type ReactNode } from 'react';
import { call } from '../lib/api';
import { getStoredUser, setStoredUser, type StoredUser } from '../lib/storage';

interface SessionValue {
  user: StoredUser | null;
  /** Stores the login `data` like the reference (localStorage.user) and re-renders the shell. */
  signIn: (user: StoredUser) => void;
  /** Ends the server session (best effort) and forgets the stored user. */
  signOut: () => Promise<void>;
  /** Forgets the stored user without calling the server (account deleted, session gone). */
  forget: () => void;
}

const SessionContext = createContext<SessionValue | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [user, setUser] = useState<StoredUser | null>(() => getStoredUser());

  const signIn = useCallback((next: StoredUser) => {
    setStoredUser(next);
    setUser(next);
  }, []);

  const forget = useCallback(() => {
    setStoredUser(null);
    setUser(null);
  }, []);

  const signOut = useCallback(async () => {
    try {
      await call('GET /api/user/logout', { silent: true });
    } catch {
      // Logging out locally must work even when the server is unreachable.
    }
    forget();
  }, [forget]);

  const value = useMemo(() => ({ user, signIn, signOut, forget }), [user, signIn, signOut, forget]);
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionValue {
  const value = useContext(SessionContext);
  if (!value) throw new Error('useSession outside SessionProvider');
  return value;
}
