import { z } from 'zod';

/** What a sign-in answers when the account has a second factor: no session yet, a short-lived ticket. */
export const twoFactorChallenge = z
  .object({
    require_2fa: z.literal(true),
    /** Single-use, expires in minutes; `POST /api/user/login/2fa` exchanges it with a code for the session. */
    flow_token: z.string(),
  })
  .meta({ id: 'TwoFactorChallenge' });
export type TwoFactorChallenge = z.infer<typeof twoFactorChallenge>;
