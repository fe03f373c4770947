import { expect } from 'vitest';
import { describeRun, runClaudeCode } from './clients.js';
import { agentSessions } from './sessions.js';

/**
 * Real Claude Code (pinned, clients.ts) on its default settings against ModelGate, once per channel
 * kind: it asks its default model (recorded in fixtures/agents/claude-code: claude-opus-5-5, with
 * adaptive thinking, context_management, output_config and a mid-conversation system turn), the fake
 * upstream calls its `Bash` tool, Claude Code runs `echo MG_AGENT_OK` and sends the result back, and
 * the fake's final answer quotes it.
 */
agentSessions({
  name: 'Claude Code',
  defaultModel: 'claude-opus-5-5',
  run: (url, token) => runClaudeCode(url, token),
  expectAnswer(run) {
    const result = JSON.parse(run.stdout) as { is_error?: boolean; result?: string };
    expect(result.is_error, describeRun(run)).toBe(false);
    expect(result.result, 'the final answer quotes the tool result').toContain('MG_AGENT_OK');
  },
});
