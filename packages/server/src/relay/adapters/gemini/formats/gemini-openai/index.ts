import type { FormatConverter } from '../../../../formats/types.js';
import { geminiToOpenAIRequest } from './request.js';
import { openAIToGeminiResponse } from './response.js';
import { openAIToGeminiStream } from './stream.js';

/** A Gemini caller served by an OpenAI chat upstream. */
export const geminiOpenAI: FormatConverter = {
  from: 'gemini',
  to: 'openai-chat',
  request: geminiToOpenAIRequest,
  response: openAIToGeminiResponse,
  stream: openAIToGeminiStream,
};
