import { describe, expect, it } from 'vitest';
import { agentBody, testContext } from '../../../test-support/convert-fixtures.js';
import { responsesToOpenAIRequest } from './request.js';

/**
 * Responses → OpenAI chat on what Codex 0.171 really sends (fixtures/agents/codex): both the classic
 * shape (gpt-5.5: top-level tools, custom apply_patch) and the default one (tools in an
 * additional_tools item, namespaces, the custom `exec` tool). docs/providers.md "Conversion policy".
 */
type Msg = Record<string, unknown>;
const fnNames = (out: Msg) => (out.tools as Array<{ function: { name: string } }>).map((t) => t.function.name);

describe('Codex request bodies → OpenAI chat', () => {
  it('gpt-5.5 first call: developer turns as system, function and custom tools, built-in tools and include noted', () => {
    const body = agentBody('codex', 'gpt-5.5.first');
    const cx = testContext('gpt-5.5', { stream: true });
    const out = responsesToOpenAIRequest(body, cx);
    expect((out.messages as Msg[]).map((m) => m.role)).toEqual(['system', 'system', 'user', 'user']);
    expect(out).toMatchObject({ model: 'gpt-5.5', stream: true, reasoning_effort: 'medium', verbosity: 'low', prompt_cache_key: body.prompt_cache_key, tool_choice: 'auto', parallel_tool_calls: true });
    expect(fnNames(out)).toEqual(['exec_command', 'write_stdin', 'request_user_input', 'apply_patch', 'view_image', 'get_goal', 'create_goal', 'update_goal']);
    const patch = (out.tools as Array<{ function: Msg }>)[3]!.function;
    expect(patch.parameters).toEqual({ type: 'object', properties: { input: { type: 'string', description: 'The raw input of the tool.' } }, required: ['input'], additionalProperties: false });
    expect(patch.description).toContain('lark grammar:\nstart: begin_patch hunk+ end_patch');
    // client_metadata and store:false are bookkeeping: left out without a note.
    expect(out).not.toHaveProperty('client_metadata');
    expect(out).not.toHaveProperty('include');
    expect(cx.dropped).toEqual(['include', 'tools.8(tool_search)', 'tools.9(web_search)']);
  });

  it('gpt-5.5 tool-result call: the function call and its output as tool_calls and a tool message', () => {
    const body = agentBody('codex', 'gpt-5.5.tool-result');
    const out = responsesToOpenAIRequest(body, testContext('gpt-5.5'));
    const msgs = out.messages as Msg[];
    const [call, output] = (body.input as Msg[]).slice(-2);
    expect(msgs.slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: call!.call_id, type: 'function', function: { name: 'exec_command', arguments: call!.arguments } }] },
      { role: 'tool', tool_call_id: call!.call_id, content: output!.output },
    ]);
  });

  it('default model: tools of the additional_tools item flattened from their namespaces; reasoning.context noted', () => {
    const body = agentBody('codex', 'default-gpt-6.2-sol.first');
    const cx = testContext('gpt-6.2-sol');
    const out = responsesToOpenAIRequest(body, cx);
    expect(fnNames(out)).toEqual(['exec', 'wait', 'request_user_input', 'request_user_input_async', 'send_message_to_user_async', 'sleep', 'followup_task', 'interrupt_agent', 'list_agents', 'send_message', 'spawn_agent', 'wait_agent']);
    const sleep = (out.tools as Array<{ function: Msg }>)[5]!.function;
    expect(sleep.description).toMatch(/^\[clock\] Tools for reading and waiting on time\.\n\n/);
    expect(out).toMatchObject({ reasoning_effort: 'low', parallel_tool_calls: false });
    expect((out.messages as Msg[]).map((m) => m.role)).toEqual(['system', 'system', 'system', 'system', 'user', 'user']);
    expect(cx.dropped).toEqual(['include', 'reasoning.context']);
  });

  it('default model tool-result call: the custom tool call as a function call with {"input"}, its output parts as text', () => {
    const body = agentBody('codex', 'default-gpt-6.2-sol.tool-result');
    const out = responsesToOpenAIRequest(body, testContext('gpt-6.2-sol'));
    const [call] = (body.input as Msg[]).slice(-2);
    expect((out.messages as Msg[]).slice(-2)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_cap1', type: 'function', function: { name: 'exec', arguments: JSON.stringify({ input: call!.input }) } }] },
      { role: 'tool', tool_call_id: 'call_cap1', content: 'Script completed\nWall time 0.1 seconds\nOutput:\nMG_AGENT_OK\n' },
    ]);
  });
});

describe('Responses → OpenAI chat: the conversion policy', () => {
  const base = { model: 'gpt-4o', input: 'hi' };

  it('refuses OpenAI-held state and a tool choice forcing a built-in tool, naming the field', () => {
    const refused = (extra: Msg) => () => responsesToOpenAIRequest({ ...base, ...extra }, testContext('gpt-4o'));
    expect(refused({ previous_response_id: 'resp_1' })).toThrow(expect.objectContaining({ status: 400, param: 'previous_response_id' }));
    expect(refused({ conversation: 'conv_1' })).toThrow(expect.objectContaining({ param: 'conversation' }));
    expect(refused({ background: true })).toThrow(expect.objectContaining({ param: 'background' }));
    expect(refused({ tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } })).toThrow(expect.objectContaining({ param: 'tool_choice' }));
    expect(refused({ input: [{ type: 'item_reference', id: 'msg_1' }] })).toThrow(expect.objectContaining({ param: 'input.0.type' }));
  });

  it('notes unknown fields, built-in tool items and unknown content parts instead of refusing', () => {
    const cx = testContext('gpt-4o');
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'look' }, { type: 'input_audio', input_audio: {} }] },
      { type: 'web_search_call', id: 'ws_1', status: 'completed', action: { type: 'search', query: 'q' } },
      { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'gAAAA' },
      { type: 'local_shell_call', id: 'ls_1', call_id: 'c1', action: { type: 'exec', command: ['ls'] }, status: 'completed' },
    ];
    const out = responsesToOpenAIRequest({ ...base, input, truncation: 'auto', store: true, metadata: { a: 'b' }, text: { verbosity: 'high', future: 1 }, top_logprobs: 2, reasoning: { effort: 'high', summary: 'auto' } }, cx);
    expect(out.messages).toEqual([{ role: 'user', content: 'look' }]);
    expect(out).toMatchObject({ verbosity: 'high', reasoning_effort: 'high' });
    expect(cx.dropped).toEqual(['top_logprobs', 'store', 'truncation', 'input.0.content.1(input_audio)', 'input.1(web_search_call)', 'input.3(local_shell_call)', 'reasoning.summary', 'text.future']);
  });

  it('a custom tool chosen by name is forced as its function; max_output_tokens follows the model family', () => {
    const tools = [{ type: 'custom', name: 'apply_patch', description: 'Patch files' }];
    const out = responsesToOpenAIRequest({ ...base, tools, tool_choice: { type: 'custom', name: 'apply_patch' }, max_output_tokens: 500 }, testContext('gpt-4o'));
    expect(out).toMatchObject({ tool_choice: { type: 'function', function: { name: 'apply_patch' } }, max_tokens: 500 });
    expect((out.tools as Array<{ function: Msg }>)[0]!.function.description).toBe('Patch files');
    expect(responsesToOpenAIRequest({ ...base, max_output_tokens: 500 }, testContext('o3'))).toMatchObject({ max_completion_tokens: 500 });
  });
});
