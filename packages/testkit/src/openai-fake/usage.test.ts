import { describe, expect, it } from 'vitest';
import { parseSseData } from './sse-client.js';
import { chooseToolCall, splitInto } from './tools.js';
import {
  countFakeTokens,
  expectedChatUsage,
  expectedCompletionUsage,
  expectedEmbeddingUsage,
  fakeReplyText,
  replyWordCount,
} from './usage.js';

const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object' } } };
const otherTool = { type: 'function', function: { name: 'lookup', parameters: { type: 'object' } } };

describe('fake token rules', () => {
  it('counts whitespace-separated words', () => {
    expect(countFakeTokens('')).toBe(0);
    expect(countFakeTokens('   ')).toBe(0);
    expect(countFakeTokens('Hi  there!\n\tfriend')).toBe(3);
  });

  it('builds reply text from N words', () => {
    expect(fakeReplyText(5)).toBe('Hello from the fake OpenAI');
    expect(countFakeTokens(fakeReplyText(23))).toBe(23);
  });

  it('computes chat usage from message text, including content parts', () => {
    const body = {
      model: 'gpt-4o',
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'one two three' }, { type: 'image_url', image_url: { url: 'x' } }] },
      ],
    };
    const usage = expectedChatUsage(body);
    expect(usage).toMatchObject({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
    expect(usage.prompt_tokens_details.cached_tokens).toBe(0);
    expect(expectedChatUsage(body, { chunkCount: 2, cachedTokens: 9, reasoningTokens: 4 })).toMatchObject({
      prompt_tokens: 5,
      completion_tokens: 6,
      total_tokens: 11,
      prompt_tokens_details: { cached_tokens: 5 },
      completion_tokens_details: { reasoning_tokens: 4 },
    });
  });

  it('cuts replies at max_completion_tokens / max_tokens', () => {
    expect(replyWordCount({ max_tokens: 1 }, 5)).toEqual({ words: 1, truncated: true });
    expect(replyWordCount({ max_completion_tokens: 2, max_tokens: 1 }, 5)).toEqual({ words: 2, truncated: true });
    expect(replyWordCount({ max_tokens: 50 }, 5)).toEqual({ words: 5, truncated: false });
    expect(replyWordCount({ max_tokens: 0 }, 5)).toEqual({ words: 5, truncated: false });
    expect(expectedChatUsage({ messages: [{ role: 'user', content: 'hi' }], max_tokens: 1 }).completion_tokens).toBe(1);
  });

  it('counts a tool-call reply as chunkCount tokens regardless of max_tokens', () => {
    const body = { messages: [{ role: 'user', content: 'weather in Paris?' }], tools: [weatherTool], max_tokens: 1 };
    expect(expectedChatUsage(body, { chunkCount: 7 })).toMatchObject({ prompt_tokens: 3, completion_tokens: 7 });
  });

  it('computes completion and embedding usage, counting token-id arrays by length', () => {
    expect(expectedCompletionUsage({ prompt: 'say this is a test' })).toEqual({ prompt_tokens: 5, completion_tokens: 5, total_tokens: 10 });
    expect(expectedCompletionUsage({ prompt: [1, 2, 3], max_tokens: 2 })).toEqual({ prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 });
    expect(expectedEmbeddingUsage({ input: ['a b', 'c', [5, 6, 7]] })).toEqual({ prompt_tokens: 6, total_tokens: 6 });
  });
});

describe('chooseToolCall', () => {
  it('calls the weather tool when the last user message mentions weather', () => {
    expect(chooseToolCall({ messages: [{ role: 'user', content: "What's the Weather like?" }], tools: [otherTool, weatherTool] })).toEqual({
      name: 'get_weather',
    });
  });

  it('answers in text without tools, without the word, or with tool_choice none', () => {
    expect(chooseToolCall({ messages: [{ role: 'user', content: 'weather?' }] })).toBeNull();
    expect(chooseToolCall({ messages: [{ role: 'user', content: 'hello' }], tools: [weatherTool] })).toBeNull();
    expect(chooseToolCall({ messages: [{ role: 'user', content: 'weather' }], tools: [weatherTool], tool_choice: 'none' })).toBeNull();
    // Only the last user message counts.
    expect(
      chooseToolCall({
        messages: [
          { role: 'user', content: 'weather' },
          { role: 'user', content: 'thanks' },
        ],
        tools: [weatherTool],
      }),
    ).toBeNull();
  });

  it('obeys a forced tool_choice', () => {
    const messages = [{ role: 'user', content: 'hello' }];
    expect(chooseToolCall({ messages, tools: [weatherTool, otherTool], tool_choice: { type: 'function', function: { name: 'lookup' } } })).toEqual({
      name: 'lookup',
    });
    expect(chooseToolCall({ messages, tools: [otherTool, weatherTool], tool_choice: 'required' })).toEqual({ name: 'lookup' });
  });

  it('splits arguments into exactly N fragments that join back', () => {
    const parts = splitInto('abcdefghij', 3);
    expect(parts).toEqual(['abcd', 'efgh', 'ij']);
    expect(splitInto('ab', 4)).toEqual(['a', 'b', '', '']);
  });
});

describe('parseSseData', () => {
  it('returns data payloads in order and ignores comments and other fields', () => {
    const text = ': keep-alive\n\nevent: x\ndata: {"a":1}\n\ndata: line1\ndata: line2\n\r\n\r\ndata: [DONE]\n\n';
    expect(parseSseData(text)).toEqual(['{"a":1}', 'line1\nline2', '[DONE]']);
  });
});
