import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, runCodex } from './clients.js';
import { CHANNEL_KINDS, agentCaller, assertBilledExactly, balances, carriesToolResult, groupOf, startAgentWorld, upstreamMark, type AgentWorld } from './harness.js';

/**
 * Real Codex CLI (pinned, clients.ts) on its default settings against ModelGate's /v1/responses, once
 * per channel kind. Its default model (recorded in fixtures/agents/codex: gpt-6.2-sol) gets its tools as
 * an `additional_tools` input item and runs shell commands through the freeform `exec` tool (JavaScript
 * calling `tools.exec_command`); the fake upstream calls it with `echo MG_AGENT_OK`, Codex runs it and
 * sends the output back, and the fake's final answer quotes it.
 */
const DEFAULT_MODEL = 'gpt-6.2-sol';
let w: AgentWorld;

beforeAll(async () => {
  w = await startAgentWorld();
});
afterAll(async () => {
  await w?.close();
});

describe('Codex on its default settings', () => {
  for (const ch of CHANNEL_KINDS) {
    it(`completes a session with a tool round trip through ${ch.label}, billed and logged exactly`, async () => {
      const c = await agentCaller(w, ch.kind);
      const before = await balances(w.h, c);
      const upstream = upstreamMark(w, ch.kind);
      const run = await runCodex(w.h.server.url, c.token);
      const sent = upstream();
      expect(run.code, describeRun(run)).toBe(0);
      expect(run.stdout, `the final answer quotes the tool result\n${describeRun(run)}`).toContain('MG_AGENT_OK');
      expect(sent.some((r) => carriesToolResult(r.body)), `the upstream saw the tool result\n${describeRun(run)}`).toBe(true);
      expect(sent.filter((r) => 'rejected' in r && r.rejected).map((r) => (r as { rejected?: unknown }).rejected), 'upstream refusals').toEqual([]);
      await assertBilledExactly(w, c, before, sent, groupOf(ch.kind));
      const models = new Set((await w.h.server.ctx.db.db.selectFrom('logs').select('model_name').where('user_id', '=', c.userId).execute()).map((l) => l.model_name));
      expect(models.has(DEFAULT_MODEL), `default model ${DEFAULT_MODEL} asked (saw ${[...models].join(', ')})`).toBe(true);
    });
  }
});
