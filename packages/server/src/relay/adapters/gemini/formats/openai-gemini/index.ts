import type { FormatConverter } from '../../../../formats/types.js';
import { openAIToGeminiRequest } from './request.js';
import { geminiToOpenAIResponse } from './response.js';
import { geminiToOpenAIStream } from './stream.js';

/** An OpenAI chat caller served by a Gemini upstream. */
export const openAIGemini: FormatConverter = {
  from: 'openai-chat',
  to: 'gemini',
  request: openAIToGeminiRequest,
  response: geminiToOpenAIResponse,
  stream: geminiToOpenAIStream,
};
