import { missingParam, type RequestContext } from './context.js';
import { sendJson } from './respond.js';
import { isRecord, makeId } from './util.js';

const CATEGORIES = [
  'harassment',
  'harassment/threatening',
  'hate',
  'hate/threatening',
  'illicit',
  'illicit/violent',
  'self-harm',
  'self-harm/instructions',
  'self-harm/intent',
  'sexual',
  'sexual/minors',
  'violence',
  'violence/graphic',
] as const;

/** Words that flag an input (as `violence`), so tests can get both outcomes deterministically. */
const FLAG_WORDS = /\b(kill|murder|attack)\b/iu;

function texts(input: unknown): string[] {
  if (typeof input === 'string') return [input];
  if (!Array.isArray(input)) return [];
  return input.map((item) => {
    if (typeof item === 'string') return item;
    return isRecord(item) && typeof item.text === 'string' ? item.text : '';
  });
}

export async function handleModerations(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body) || body.input === undefined) throw missingParam('input');
  const results = texts(body.input).map((text) => {
    const flagged = FLAG_WORDS.test(text);
    const categories = Object.fromEntries(CATEGORIES.map((c) => [c, flagged && c === 'violence']));
    const scores = Object.fromEntries(CATEGORIES.map((c) => [c, flagged && c === 'violence' ? 0.9 : 0.0001]));
    const applied = Object.fromEntries(CATEGORIES.map((c) => [c, ['text']]));
    return { flagged, categories, category_scores: scores, category_applied_input_types: applied };
  });
  const model = typeof body.model === 'string' ? body.model : 'text-moderation-stable';
  await sendJson(ctx, { id: makeId('modr-', ctx.state.nextId()), model, results });
}
