import { z } from 'zod';
import { ID_MAX, INT32_MAX } from '../validation.js';
import { resource } from './contract.js';
import { apiResponse, paged } from './envelope.js';
import { optionalInt, pageQuery, queryText, queryTimestamp } from './fields.js';

/**
 * A usage-log row (console-api.md §5 `/log`, G4): `channel` is the channel id, `other` always a
 * JSON string ("{}" at least). Users reading their own log get `id % 1024` and no `admin_info`.
 */
export const logEntry = z
  .object({
    id: z.number().int(),
    user_id: z.number().int(),
    created_at: z.number().int(),
    /** 1 top-up, 2 consumption, 3 admin, 4 system. */
    type: z.number().int(),
    content: z.string(),
    username: z.string(),
    token_name: z.string(),
    model_name: z.string(),
    quota: z.number().int(),
    prompt_tokens: z.number().int(),
    completion_tokens: z.number().int(),
    /** Seconds. */
    use_time: z.number().int(),
    is_stream: z.boolean(),
    channel: z.number().int(),
    token_id: z.number().int(),
    group: z.string(),
    other: z.string(),
  })
  .meta({ id: 'LogEntry' });
export type LogEntry = z.infer<typeof logEntry>;

export const logStat = z.object({ quota: z.number(), rpm: z.number(), tpm: z.number() }).meta({ id: 'LogStat' });
export type LogStat = z.infer<typeof logStat>;

/** The console always sends every filter, empty ones included (`&username=&token_name=`). */
export const selfLogFilter = z.object({
  type: optionalInt(0, INT32_MAX),
  token_name: queryText,
  model_name: queryText,
  start_timestamp: queryTimestamp,
  end_timestamp: queryTimestamp,
  group: queryText,
});
export const logFilter = selfLogFilter.extend({ username: queryText, channel: optionalInt(0, ID_MAX) });
export type LogFilterQuery = z.input<typeof logFilter>;

export const logRoutes = resource('logs', {
  'GET /api/log/': { auth: 'admin', summary: 'Every usage log row, paged', querystring: pageQuery.extend(logFilter.shape), response: apiResponse(paged(logEntry)) },
  'GET /api/log/stat': { auth: 'admin', summary: 'Quota over the filter; rpm and tpm over the last 60 s', querystring: logFilter, response: apiResponse(logStat) },
  'GET /api/log/self': { auth: 'user', summary: 'Own usage log, paged', querystring: pageQuery.extend(selfLogFilter.shape), response: apiResponse(paged(logEntry)) },
  'GET /api/log/self/stat': { auth: 'user', summary: 'Own quota, rpm and tpm', querystring: selfLogFilter, response: apiResponse(logStat) },
  'GET /api/log/search': {
    auth: 'admin',
    summary: 'The newest 100 rows whose type is the keyword, or whose content, model, token or username starts with it',
    querystring: z.object({ keyword: queryText }),
    response: apiResponse(z.array(logEntry)),
  },
  'GET /api/log/self/search': {
    auth: 'user',
    summary: 'Own newest 100 rows whose type is the keyword, or whose content, model or token starts with it',
    querystring: z.object({ keyword: queryText }),
    response: apiResponse(z.array(logEntry)),
  },
  'GET /api/log/token': {
    auth: 'public',
    summary: 'Usage of one API key, newest first (the key is the credential; CORS open, rate-limited)',
    querystring: z.object({ key: queryText }),
    response: apiResponse(z.array(logEntry)),
  },
  'OPTIONS /api/log/token': { auth: 'public', summary: 'CORS preflight for usage pages on other sites', responses: { 204: z.null().meta({ description: 'No content' }) } },
  'DELETE /api/log/': {
    auth: 'admin',
    summary: 'Delete log rows older than a Unix time; answers the count',
    querystring: z.object({ target_timestamp: queryTimestamp }),
    response: apiResponse(z.number().int()),
    audit: { action: 'log.delete', target: 'log', targetId: 'query.target_timestamp', result: true },
  },
});
