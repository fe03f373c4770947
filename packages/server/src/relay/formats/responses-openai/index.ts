import type { FormatConverter } from '../types.js';
import { responsesToOpenAIRequest } from './request.js';
import { openAIToResponsesResponse } from './response.js';
import { openAIToResponsesStream } from './stream.js';

/** A Responses caller served by an OpenAI chat upstream (and, composed, by every other format). */
export const responsesOpenAI: FormatConverter = {
  from: 'openai-responses',
  to: 'openai-chat',
  request: responsesToOpenAIRequest,
  response: openAIToResponsesResponse,
  stream: openAIToResponsesStream,
};
