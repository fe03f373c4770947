import { describe, expect, it } from 'vitest';
import { agentBody, testContext } from '../../../../../test-support/convert-fixtures.js';
import { anthropicToOpenAIRequest } from './request.js';

/**
 * Anthropic Messages → OpenAI chat on what Claude Code 2.1 really sends (fixtures/agents/claude-code):
 * hints are mapped or left out with a note, never refused; a mid-conversation system message stays
 * where it was; only a forced server tool is refused (docs/providers.md "Conversion policy").
 */
type Msg = Record<string, unknown>;
const messagesOf = (out: Msg) => out.messages as Msg[];

describe('Claude Code request bodies → OpenAI chat', () => {
  it('converts the first call: system, the mid-conversation system turn in place, tools, effort; notes what it left out', () => {
    const body = agentBody('claude-code', 'default-claude-opus-5-5.first');
    const cx = testContext('gpt-5.5');
    const out = anthropicToOpenAIRequest(body, cx);
    const msgs = messagesOf(out);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'system']);
    const system = (body.system as Array<{ text: string }>).map((b) => b.text).join('');
    expect(msgs[0]!.content).toBe(system);
    expect(msgs[2]!.content).toMatch(/^# Environment\n/);
    // gpt-5 models take max_completion_tokens; adaptive thinking at effort medium → reasoning_effort medium.
    expect(out).toMatchObject({ model: 'gpt-5.5', max_completion_tokens: 128000, stream: true, reasoning_effort: 'medium' });
    expect(out).not.toHaveProperty('max_tokens');
    expect(out).not.toHaveProperty('context_management');
    expect(out).not.toHaveProperty('output_config');
    expect(out.user).toBe((body.metadata as Msg).user_id);
    const tools = out.tools as Array<{ type: string; function: Msg }>;
    expect(tools.map((t) => t.function.name)).toEqual((body.tools as Msg[]).map((t) => t.name));
    expect(tools[1]).toEqual({ type: 'function', function: { name: 'Bash', description: (body.tools as Msg[])[1]!.description, parameters: (body.tools as Msg[])[1]!.input_schema } });
    expect(cx.dropped).toEqual(['context_management', 'cache_control', 'messages.1.output_config', 'tools.defer_loading']);
  });

  it('converts the tool-result call: the tool_use as tool_calls, the result as a tool message right after', () => {
    const body = agentBody('claude-code', 'default-claude-opus-5-5.tool-result');
    const cx = testContext('gpt-4o');
    const out = anthropicToOpenAIRequest(body, cx);
    const msgs = messagesOf(out);
    expect(msgs.map((m) => m.role)).toEqual(['system', 'user', 'system', 'assistant', 'tool']);
    const use = ((body.messages as Msg[])[2]!.content as Msg[])[0]!;
    const result = ((body.messages as Msg[])[3]!.content as Msg[])[0]!;
    expect(msgs[3]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: use.id, type: 'function', function: { name: 'Bash', arguments: JSON.stringify(use.input) } }] });
    expect(msgs[4]).toEqual({ role: 'tool', tool_call_id: result.tool_use_id, content: result.content });
    expect(out).toMatchObject({ max_tokens: 128000 });
    expect(cx.dropped).toContain('context_management');
  });
});

describe('Anthropic → OpenAI chat: the conversion policy', () => {
  const base = { model: 'claude-sonnet-4-6', max_tokens: 4000, messages: [{ role: 'user', content: 'hi' }] };

  it('leaves server tools out with a note, and refuses only a tool_choice that forces one', () => {
    const tools = [{ name: 'get_weather', input_schema: { type: 'object' } }, { type: 'web_search_20250305', name: 'web_search' }, { type: 'bash_20250124', name: 'bash' }];
    const cx = testContext('gpt-4o');
    const out = anthropicToOpenAIRequest({ ...base, tools, tool_choice: { type: 'auto' } }, cx);
    expect((out.tools as Msg[]).length).toBe(1);
    expect(out.tool_choice).toBe('auto');
    expect(cx.dropped).toEqual(['tools.1(web_search_20250305)', 'tools.2(bash_20250124)']);
    const forced = () => anthropicToOpenAIRequest({ ...base, tools, tool_choice: { type: 'tool', name: 'web_search' } }, testContext('gpt-4o'));
    expect(forced).toThrow(expect.objectContaining({ status: 400, param: 'tool_choice' }));
    const onlyServer = () => anthropicToOpenAIRequest({ ...base, tools: tools.slice(1), tool_choice: { type: 'any' } }, testContext('gpt-4o'));
    expect(onlyServer).toThrow(expect.objectContaining({ param: 'tool_choice' }));
  });

  it('maps thinking and effort to reasoning_effort; an effort without thinking is noted', () => {
    const run = (extra: Msg) => {
      const cx = testContext('o4-mini');
      return { out: anthropicToOpenAIRequest({ ...base, ...extra }, cx), dropped: cx.dropped };
    };
    expect(run({ thinking: { type: 'enabled', budget_tokens: 1024 } }).out.reasoning_effort).toBe('low');
    expect(run({ thinking: { type: 'enabled', budget_tokens: 20000 } }).out.reasoning_effort).toBe('high');
    expect(run({ thinking: { type: 'adaptive' } }).out.reasoning_effort).toBe('medium');
    expect(run({ thinking: { type: 'adaptive' }, output_config: { effort: 'max' } }).out.reasoning_effort).toBe('xhigh');
    expect(run({ thinking: { type: 'enabled', budget_tokens: 1024 }, output_config: { effort: 'high' } }).out.reasoning_effort).toBe('high');
    const off = run({ output_config: { effort: 'low', task_budget: { type: 'tokens', total: 1000 } } });
    expect(off.out).not.toHaveProperty('reasoning_effort');
    expect(off.dropped).toEqual(['output_config.effort', 'output_config.task_budget']);
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(run({ output_config: { format: { type: 'json_schema', schema } } }).out.response_format).toEqual({ type: 'json_schema', json_schema: { name: 'output', schema, strict: true } });
  });

  it('notes unknown and Anthropic-only top-level fields instead of refusing them', () => {
    const cx = testContext('gpt-4o');
    const out = anthropicToOpenAIRequest({ ...base, top_k: 5, container: 'c1', mcp_servers: [{ type: 'url', url: 'https://x' }], service_tier: 'auto', some_future_hint: true }, cx);
    expect(Object.keys(out).sort()).toEqual(['max_tokens', 'messages', 'model']);
    expect(cx.dropped).toEqual(['top_k', 'container', 'mcp_servers', 'service_tier', 'some_future_hint']);
  });

  it('converts documents, search results and tool-result images; notes server tool blocks; thinking stays out silently', () => {
    const cx = testContext('gpt-4o');
    const img = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } };
    const out = anthropicToOpenAIRequest(
      {
        ...base,
        messages: [
          { role: 'user', content: [{ type: 'document', title: 'Notes', source: { type: 'text', media_type: 'text/plain', data: 'a plain text' } }, { type: 'search_result', title: 'T', source: 'https://s', content: [{ type: 'text', text: 'found' }] }] },
          {
            role: 'assistant',
            content: [
              { type: 'thinking', thinking: 'hmm', signature: 'sig' },
              { type: 'server_tool_use', id: 'srv1', name: 'web_search', input: { query: 'q' } },
              { type: 'web_search_tool_result', tool_use_id: 'srv1', content: [] },
              { type: 'text', text: 'Looking.' },
              { type: 'tool_use', id: 'toolu_1', name: 'Read', input: { path: 'a.png' } },
            ],
          },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'the image:' }, img] }] },
        ],
      },
      cx,
    );
    expect(messagesOf(out)).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Notes\n\na plain text' }, { type: 'text', text: 'T — https://s\nfound' }] },
      { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'Read', arguments: '{"path":"a.png"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'the image:' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] },
    ]);
    expect(cx.dropped).toEqual(['messages.1.content.1(server_tool_use)', 'messages.1.content.2(web_search_tool_result)']);
  });

  it('caps the note list at 20 names of at most 64 characters', () => {
    const cx = testContext('gpt-4o');
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`hint_${i}_${'x'.repeat(80)}`, true]));
    anthropicToOpenAIRequest({ ...base, ...extra }, cx);
    expect(cx.dropped).toHaveLength(20);
    expect(cx.dropped!.every((n) => n.length === 64)).toBe(true);
  });
});
