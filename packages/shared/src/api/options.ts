import { z } from 'zod';
import { resource } from './contract.js';
import { apiDoneWithMessage, apiEmpty, apiResponse } from './envelope.js';

/** Every value a string (booleans "true"/"false", maps as JSON text); secrets are never listed. */
export const optionEntry = z.object({ key: z.string(), value: z.string() }).meta({ id: 'Option' });
export type OptionEntry = z.infer<typeof optionEntry>;

/** One key per request; the console sends strings, scripts may send numbers, booleans or JSON. */
export const optionBody = z.object({
  key: z.string().min(1),
  value: z.unknown().meta({ description: 'A string; numbers, booleans and JSON values are stored as their text' }),
});
export type OptionBody = z.input<typeof optionBody>;

export const optionRoutes = resource('options', {
  'GET /api/option/': { auth: 'root', summary: 'Every option but secrets', response: apiResponse(z.array(optionEntry)) },
  'PUT /api/option/': {
    auth: 'root',
    summary: 'Set one option',
    body: optionBody,
    response: apiEmpty,
    audit: { action: 'option.update', target: 'option', targetId: 'body.key', snapshot: true },
  },
  // The misspelt path is the reference's (console-api.md §5).
  'POST /api/option/rest_model_ratio': {
    auth: 'root',
    summary: 'Reset ModelRatio to the defaults (the reference); with scope=all also CompletionRatio, ModelPrice, CacheRatio and CreateCacheRatio (this console)',
    querystring: z.object({ scope: z.enum(['all']).optional() }),
    response: apiDoneWithMessage,
    audit: { action: 'option.reset_ratios', target: 'option', targetId: ['ModelRatio', 'CompletionRatio', 'ModelPrice', 'CacheRatio', 'CreateCacheRatio'], snapshot: true },
  },
});
