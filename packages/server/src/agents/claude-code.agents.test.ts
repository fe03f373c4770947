import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, runClaudeCode } from './clients.js';
import { CHANNEL_KINDS, agentCaller, assertBilledExactly, balances, carriesToolResult, groupOf, startAgentWorld, upstreamMark, type AgentWorld } from './harness.js';

/**
 * Real Claude Code (pinned, clients.ts) on its default settings against ModelGate, once per channel
 * kind: it asks its default model (recorded in fixtures/agents/claude-code: claude-opus-5-5, with
 * adaptive thinking, context_management, output_config and a mid-conversation system turn), the fake
 * upstream calls its `Bash` tool, Claude Code runs `echo MG_AGENT_OK` and sends the result back, and
 * the fake's final answer quotes it.
 */
const DEFAULT_MODEL = 'claude-opus-5-5';
let w: AgentWorld;

beforeAll(async () => {
  w = await startAgentWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('Claude Code on its default settings', () => {
  for (const ch of CHANNEL_KINDS) {
    it(`completes a session with a tool round trip through ${ch.label}, billed and logged exactly`, async () => {
      const c = await agentCaller(w, ch.kind);
      const before = await balances(w.h, c);
      const upstream = upstreamMark(w, ch.kind);
      const run = await runClaudeCode(w.h.server.url, c.token);
      const sent = upstream();
      expect(run.code, describeRun(run)).toBe(0);
      const result = JSON.parse(run.stdout) as { is_error?: boolean; result?: string };
      expect(result.is_error, describeRun(run)).toBe(false);
      expect(result.result, 'the final answer quotes the tool result').toContain('MG_AGENT_OK');
      expect(sent.some((r) => carriesToolResult(r.body)), 'the upstream saw the tool result').toBe(true);
      expect(sent.filter((r) => 'rejected' in r && r.rejected).map((r) => (r as { rejected?: unknown }).rejected), 'upstream refusals').toEqual([]);
      await assertBilledExactly(w, c, before, sent, groupOf(ch.kind));
      const models = new Set((await w.h.server.ctx.db.db.selectFrom('logs').select('model_name').where('user_id', '=', c.userId).execute()).map((l) => l.model_name));
      expect(models.has(DEFAULT_MODEL), `default model ${DEFAULT_MODEL} asked (saw ${[...models].join(', ')})`).toBe(true);
    });
  }
});
