import type { Lang } from '@modelgate/shared';
import { RelayError } from '../../relay-error.js';
import { isObj } from '../shared/wire.js';

function invalid(_lang: Lang, param: string, message: string): RelayError {
  return new RelayError(400, 'invalid_request_error', param === 'model' || param === 'input' ? 'missing_required_parameter' : 'invalid_value', message, param);
}

/**
 * Checks of an inbound Responses body (platform.openai.com/docs/api-reference/responses/create):
 * the fields ModelGate reads, each failure naming its field in OpenAI's words. Unknown fields pass
 * (forwarded to Responses upstreams, refused by name where they must be converted).
 */
export function validateResponsesBody(lang: Lang, body: Record<string, unknown>): void {
  if (typeof body.model !== 'string' || !body.model) throw invalid(lang, 'model', "Missing required parameter: 'model'.");
  const input = body.input;
  if (input === undefined || input === null) throw invalid(lang, 'input', "Missing required parameter: 'input'.");
  if (typeof input !== 'string' && !Array.isArray(input)) throw invalid(lang, 'input', "Invalid type for 'input': expected a string or an array of input items.");
  if (Array.isArray(input)) {
    input.forEach((item, i) => {
      if (!isObj(item)) throw invalid(lang, `input[${i}]`, `Invalid type for 'input[${i}]': expected an object.`);
      if (item.type === undefined && item.role === undefined) throw invalid(lang, `input[${i}]`, `Missing required parameter: 'input[${i}].role'.`);
    });
  }
  if (body.stream !== undefined && typeof body.stream !== 'boolean') throw invalid(lang, 'stream', "Invalid type for 'stream': expected a boolean.");
  const max = body.max_output_tokens;
  if (max !== undefined && max !== null && !(typeof max === 'number' && Number.isInteger(max) && max > 0)) {
    throw invalid(lang, 'max_output_tokens', "Invalid 'max_output_tokens': expected a positive integer.");
  }
  if (body.tools !== undefined && !Array.isArray(body.tools)) throw invalid(lang, 'tools', "Invalid type for 'tools': expected an array.");
  if (body.instructions !== undefined && body.instructions !== null && typeof body.instructions !== 'string') {
    throw invalid(lang, 'instructions', "Invalid type for 'instructions': expected a string.");
  }
}
