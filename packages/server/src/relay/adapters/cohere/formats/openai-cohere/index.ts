import type { FormatConverter } from '../../../../formats/types.js';
import { openAIToCohereRequest } from './request.js';
import { cohereToOpenAIResponse } from './response.js';
import { cohereToOpenAIStream } from './stream.js';

/** An OpenAI chat caller served by a Cohere v2 upstream (other callers are composed through OpenAI chat). */
export const openAICohere: FormatConverter = {
  from: 'openai-chat',
  to: 'cohere-chat',
  request: openAIToCohereRequest,
  response: cohereToOpenAIResponse,
  stream: cohereToOpenAIStream,
};
