import type { FormatConverter } from '../../../../formats/types.js';
import { openAIToAnthropicRequest } from './request.js';
import { anthropicToOpenAIResponse } from './response.js';
import { anthropicToOpenAIStream } from './stream.js';

/** An OpenAI chat caller served by an Anthropic Messages upstream. */
export const openAIAnthropic: FormatConverter = {
  from: 'openai-chat',
  to: 'anthropic-messages',
  request: openAIToAnthropicRequest,
  response: anthropicToOpenAIResponse,
  stream: anthropicToOpenAIStream,
};
