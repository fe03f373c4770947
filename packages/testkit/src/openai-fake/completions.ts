import { checkStreamOptions, missingParam, type RequestContext } from './context.js';
import { sendJson, sendSse } from './respond.js';
import { fakeReplyText, fakeReplyWords, inputTokens, replyWordCount, type CompletionUsage } from './usage.js';
import { isRecord, makeId, nowSeconds } from './util.js';

/** Legacy `/v1/completions` (text_completion), still used by instruct models and some gateways. */
export async function handleCompletions(ctx: RequestContext): Promise<void> {
  const body = ctx.body;
  if (!isRecord(body) || typeof body.model !== 'string') throw missingParam('model');
  if (body.prompt === undefined) throw missingParam('prompt');
  checkStreamOptions(body);
  const id = makeId('cmpl-', ctx.state.nextId());
  const created = nowSeconds();
  const { words, truncated } = replyWordCount(body, ctx.state.chunkCount);
  const finishReason = truncated ? 'length' : 'stop';
  const prompt = inputTokens(body.prompt);
  const usage: CompletionUsage = { prompt_tokens: prompt, completion_tokens: words, total_tokens: prompt + words };
  const base = { id, object: 'text_completion', created, model: body.model, system_fingerprint: 'fp_fake' };

  if (body.stream === true) {
    const includeUsage = isRecord(body.stream_options) && body.stream_options.include_usage === true && !ctx.fault?.omitUsage;
    await sendSse(ctx, completionFrames(base, fakeReplyWords(words), finishReason, includeUsage ? usage : undefined));
    return;
  }
  const completion: Record<string, unknown> = {
    ...base,
    choices: [{ text: fakeReplyText(words), index: 0, logprobs: null, finish_reason: finishReason }],
    usage,
  };
  if (ctx.fault?.omitUsage) delete completion.usage;
  await sendJson(ctx, completion);
}

function* completionFrames(
  base: Record<string, unknown>,
  words: string[],
  finishReason: string,
  usage: CompletionUsage | undefined,
): Generator<string> {
  const choice = (text: string, finish: string | null): unknown[] => [{ text, index: 0, logprobs: null, finish_reason: finish }];
  for (const [i, word] of words.entries()) {
    yield JSON.stringify({ ...base, choices: choice(i === 0 ? word : ` ${word}`, null) });
  }
  yield JSON.stringify({ ...base, choices: choice('', finishReason) });
  if (usage) yield JSON.stringify({ ...base, choices: [], usage });
  yield '[DONE]';
}
