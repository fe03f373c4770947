import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeRun, type ClientRun } from './clients.js';
import { CHANNEL_KINDS, agentCaller, assertBilledExactly, balances, carriesToolResult, groupOf, startAgentWorld, upstreamMark, type AgentWorld } from './harness.js';

interface AgentClient {
  /** The client as the suite names it ("Claude Code", "Codex"). */
  name: string;
  /** The model it asks for on its default settings (recorded in fixtures/agents). */
  defaultModel: string;
  run(baseUrl: string, token: string): Promise<ClientRun>;
  /** Checks the run's final answer (client-specific output) quotes the tool result. */
  expectAnswer(run: ClientRun): void;
}

/**
 * One real client on its default settings, once per channel kind: the fake upstream calls the shell
 * tool the client offered, the client runs `echo MG_AGENT_OK` and sends the result back, the fake's
 * final answer quotes it; every relayed request is logged and billed exactly.
 */
export function agentSessions(client: AgentClient): void {
  let w: AgentWorld;
  beforeAll(async () => {
    w = await startAgentWorld();
  });
  afterAll(async () => {
    await w?.close();
  });

  describe(`${client.name} on its default settings`, () => {
    for (const ch of CHANNEL_KINDS) {
      it(`completes a session with a tool round trip through ${ch.label}, billed and logged exactly`, async () => {
        const c = await agentCaller(w, ch.kind);
        const before = await balances(w.h, c);
        const upstream = upstreamMark(w, ch.kind);
        const run = await client.run(w.h.server.url, c.token);
        const sent = upstream();
        expect(run.code, describeRun(run)).toBe(0);
        client.expectAnswer(run);
        expect(sent.some((r) => carriesToolResult(r.body)), `the upstream saw the tool result\n${describeRun(run)}`).toBe(true);
        expect(sent.filter((r) => 'rejected' in r && r.rejected).map((r) => (r as { rejected?: unknown }).rejected), 'upstream refusals').toEqual([]);
        await assertBilledExactly(w, c, before, sent, groupOf(ch.kind));
        const models = new Set((await w.h.server.ctx.logDb.db.selectFrom('logs').select('model_name').where('user_id', '=', c.userId).execute()).map((l) => l.model_name));
        expect(models.has(client.defaultModel), `default model ${client.defaultModel} asked (saw ${[...models].join(', ')})`).toBe(true);
      });
    }
  });
}
