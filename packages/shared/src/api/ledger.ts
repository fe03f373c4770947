import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse } from './envelope.js';

const mismatch = z.object({
  account: z.enum(['user', 'token', 'window']),
  id: z.number().int(),
  /** The user's name (users), the owner's id (tokens), or `account/window` (windows: docs/ledger.md "Windows and plans"). */
  name: z.string(),
  field: z.enum(['quota', 'used_quota', 'aff_quota', 'remain_quota', 'quota_used', 'requests_used']),
  expected: z.number(),
  actual: z.number(),
});
const accountSummary = z.object({
  id: z.number().int(),
  opening: z.number(),
  credits: z.number(),
  charges: z.number(),
  held: z.number(),
  balance: z.number(),
});

/** docs/ledger.md's reconciliation over the whole database, plus the lines `npm run ledger:check` prints. */
export const reconciliation = z
  .object({
    ok: z.boolean(),
    users: z.number().int(),
    tokens: z.number().int(),
    requests: z.object({ settled: z.number().int(), released: z.number().int(), open: z.number().int() }),
    mismatches: z.array(mismatch),
    accounts: z.array(accountSummary),
    lines: z.array(z.string()),
  })
  .meta({ id: 'Reconciliation' });
export type Reconciliation = z.infer<typeof reconciliation>;

export const ledgerRoutes = resource('ledger', {
  'GET /api/ledger/check': {
    auth: 'root',
    summary: 'Reconcile every balance with the ledger',
    querystring: z.object({ fix_report: z.string().optional() }),
    response: apiResponse(reconciliation),
  },
});
