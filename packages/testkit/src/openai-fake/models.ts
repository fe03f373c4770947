import type { RequestContext } from './context.js';
import { RequestError } from './context.js';
import { documentedErrorKind, documentedModel, documentedModelList } from './documented.js';
import { sendJson } from './respond.js';

/** Models served when the `models` option is not given: one per endpoint family. */
export const DEFAULT_FAKE_MODELS = [
  'gpt-4o',
  'gpt-4o-mini',
  'gpt-3.5-turbo',
  'gpt-3.5-turbo-instruct',
  'text-embedding-3-small',
  'text-embedding-ada-002',
  'dall-e-2',
  'dall-e-3',
  'gpt-image-1',
  'tts-1',
  'whisper-1',
  'omni-moderation-latest',
  'text-moderation-stable',
];

/** A fixed creation time so model listings are byte-for-byte reproducible. */
const MODEL_CREATED = 1_700_000_000;

function modelObject(id: string): Record<string, unknown> {
  return documentedModel({ id, object: 'model', created: MODEL_CREATED, owned_by: id.startsWith('gpt-') || id.startsWith('o') ? 'openai' : 'system' });
}

export function modelNotFound(id: string): RequestError {
  return new RequestError(404, {
    message: `The model \`${id}\` does not exist or you do not have access to it.`,
    type: documentedErrorKind(404)?.type ?? 'invalid_request_error',
    param: null,
    code: documentedErrorKind(404)?.code ?? 'model_not_found',
  });
}

export async function handleListModels(ctx: RequestContext): Promise<void> {
  await sendJson(ctx, documentedModelList(ctx.state.models.map(modelObject)));
}

export async function handleGetModel(ctx: RequestContext, id: string): Promise<void> {
  if (!ctx.state.models.includes(id)) throw modelNotFound(id);
  await sendJson(ctx, modelObject(id));
}
