import { expect } from 'vitest';
import { describeRun, runCodex } from './clients.js';
import { agentSessions } from './sessions.js';

/**
 * Real Codex CLI (pinned, clients.ts) on its default settings against ModelGate's /v1/responses, once
 * per channel kind. Its default model (recorded in fixtures/agents/codex: gpt-6.2-sol) gets its tools as
 * an `additional_tools` input item and runs shell commands through the freeform `exec` tool (JavaScript
 * calling `tools.exec_command`); the fake upstream calls it with `echo MG_AGENT_OK`, Codex runs it and
 * sends the output back, and the fake's final answer quotes it.
 */
agentSessions({
  name: 'Codex',
  defaultModel: 'gpt-6.2-sol',
  run: runCodex,
  expectAnswer(run) {
    expect(run.stdout, `the final answer quotes the tool result\n${describeRun(run)}`).toContain('MG_AGENT_OK');
  },
});
