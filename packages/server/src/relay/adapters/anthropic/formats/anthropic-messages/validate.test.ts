import { describe, expect, it } from 'vitest';
import { agentBody } from '../../../../../test-support/convert-fixtures.js';
import { validateMessagesBody } from './validate.js';

/** The Messages body check on Claude Code's real bodies and on the system-message rules. */
describe('validateMessagesBody', () => {
  it('accepts both Claude Code calls: a system turn inside messages, tool_choice null, hints', () => {
    for (const name of ['default-claude-opus-5-5.first', 'default-claude-opus-5-5.tool-result']) {
      expect(() => validateMessagesBody('en', agentBody('claude-code', name))).not.toThrow();
    }
  });

  const body = (messages: unknown[]) => ({ model: 'claude-sonnet-4-6', max_tokens: 10, messages });
  const fails = (b: Record<string, unknown>) => {
    try {
      validateMessagesBody('en', b);
    } catch (e) {
      return e as { status: number; param: string; type: string; message: string };
    }
    throw new Error('accepted');
  };

  it('accepts a system message anywhere, as a string or text blocks', () => {
    expect(() => validateMessagesBody('en', body([{ role: 'system', content: 'first' }, { role: 'user', content: 'hi' }, { role: 'system', content: [{ type: 'text', text: 'later' }] }]))).not.toThrow();
  });

  it('refuses a system message with non-text blocks, a conversation of system messages only, and other roles, naming the field', () => {
    expect(fails(body([{ role: 'user', content: 'hi' }, { role: 'system', content: [{ type: 'image', source: {} }] }]))).toMatchObject({ status: 400, param: 'messages.1.content.0.type', type: 'invalid_request_error' });
    expect(fails(body([{ role: 'system', content: 'only' }]))).toMatchObject({ status: 400, param: 'messages' });
    const other = fails(body([{ role: 'tool', content: 'x' }]));
    expect(other).toMatchObject({ status: 400, param: 'messages.0.role' });
    expect(other.message).toContain("'user', 'assistant' or 'system'");
  });
});
