import type { FormatConverter } from '../../../../formats/types.js';
import { anthropicToOpenAIRequest } from './request.js';
import { openAIToAnthropicResponse } from './response.js';
import { openAIToAnthropicStream } from './stream.js';

/** An Anthropic Messages caller served by an OpenAI chat upstream. */
export const anthropicOpenAI: FormatConverter = {
  from: 'anthropic-messages',
  to: 'openai-chat',
  request: anthropicToOpenAIRequest,
  response: openAIToAnthropicResponse,
  stream: openAIToAnthropicStream,
};
