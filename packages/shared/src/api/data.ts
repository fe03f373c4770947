import { z } from 'zod';
import { resource } from './contract.js';
import { apiResponse } from './envelope.js';
import { queryText, queryTimestamp } from './fields.js';

/**
 * One hourly usage bucket of the data dashboard (console-api.md §5 `/detail`): per model and
 * hour, summed over the matching users. `created_at` is the hour's start (Unix seconds).
 */
export const quotaDataEntry = z
  .object({
    model_name: z.string(),
    created_at: z.number().int(),
    token_used: z.number().int(),
    count: z.number().int(),
    quota: z.number().int(),
  })
  .meta({ id: 'QuotaDataEntry' });
export type QuotaDataEntry = z.infer<typeof quotaDataEntry>;

/** `default_time` (hour, day or week) is the console's chart granularity; the server answers hours. */
const dataQuery = z.object({ start_timestamp: queryTimestamp, end_timestamp: queryTimestamp, default_time: queryText });

export const dataRoutes = resource('data', {
  'GET /api/data/': {
    auth: 'admin',
    summary: 'Hourly usage per model (every user, or one username)',
    querystring: dataQuery.extend({ username: queryText }),
    response: apiResponse(z.array(quotaDataEntry)),
  },
  'GET /api/data/self': { auth: 'user', summary: 'Own hourly usage per model (a span of 30 days at most)', querystring: dataQuery, response: apiResponse(z.array(quotaDataEntry)) },
});
