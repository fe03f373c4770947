import { emptyUsage } from '@modelgate/shared';
import { describe, expect, it } from 'vitest';
import { agentBody, testContext } from '../../../test-support/convert-fixtures.js';
import { framesToEvents } from '../compose.js';
import { openAIReader } from '../openai-chat/stream.js';
import { openAIToResponsesResponse } from './response.js';
import { openAIToResponsesStream } from './stream.js';

/**
 * Replies of a chat upstream to a Codex request: a call of a tool the caller declared as `custom`
 * comes back as a `custom_tool_call` item (raw input, not JSON), in the JSON reply and in the stream
 * (`response.custom_tool_call_input.delta` / `.done`); function tools stay `function_call`.
 */
type Msg = Record<string, unknown>;
const usage = { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 };
const patch = '*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch\n';

describe('chat reply → Responses reply', () => {
  it('turns a call of the custom apply_patch tool into a custom_tool_call, a function call into a function_call', () => {
    const cx = testContext('gpt-5.5', { callerBody: agentBody('codex', 'gpt-5.5.first') });
    const json = {
      id: 'chatcmpl-1',
      model: 'gpt-5.5',
      choices: [
        {
          finish_reason: 'tool_calls',
          message: {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_a', type: 'function', function: { name: 'apply_patch', arguments: JSON.stringify({ input: patch }) } },
              { id: 'call_b', type: 'function', function: { name: 'exec_command', arguments: '{"cmd":"ls"}' } },
            ],
          },
        },
      ],
      usage,
    };
    const out = openAIToResponsesResponse(json, cx);
    expect(out.output).toEqual([
      { type: 'custom_tool_call', id: 'ctc_reqtest10', call_id: 'call_a', name: 'apply_patch', input: patch, status: 'completed' },
      { type: 'function_call', id: 'fc_reqtest11', call_id: 'call_b', name: 'exec_command', arguments: '{"cmd":"ls"}', status: 'completed' },
    ]);
  });

  it('gives a namespaced tool its declared name and namespace back', () => {
    const cx = testContext('gpt-6.2-sol', { callerBody: agentBody('codex', 'default-gpt-6.2-sol.first') });
    const json = { choices: [{ finish_reason: 'tool_calls', message: { tool_calls: [{ id: 'c1', type: 'function', function: { name: 'sleep', arguments: '{"ms":10}' } }, { id: 'c2', type: 'function', function: { name: 'exec', arguments: '{"input":"text(1)"}' } }] } }] };
    expect(openAIToResponsesResponse(json, cx).output).toEqual([
      { type: 'function_call', id: 'fc_reqtest10', call_id: 'c1', namespace: 'clock', name: 'sleep', arguments: '{"ms":10}', status: 'completed' },
      { type: 'custom_tool_call', id: 'ctc_reqtest11', call_id: 'c2', namespace: 'functions', name: 'exec', input: 'text(1)', status: 'completed' },
    ]);
  });
});

describe('chat stream → Responses stream', () => {
  it('streams a custom tool call as a custom_tool_call item with its input events', () => {
    const cx = testContext('gpt-5.5', { stream: true, callerBody: agentBody('codex', 'gpt-5.5.first') });
    const writer = openAIToResponsesStream(cx);
    const reader = openAIReader();
    const args = JSON.stringify({ input: patch });
    const chunks = [
      { id: 'c1', created: 1, model: 'gpt-5.5', choices: [{ index: 0, delta: { role: 'assistant', tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'apply_patch', arguments: '' } }] } }] },
      { id: 'c1', created: 1, model: 'gpt-5.5', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(0, 20) } }] } }] },
      { id: 'c1', created: 1, model: 'gpt-5.5', choices: [{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: args.slice(20) } }] } }] },
      { id: 'c1', created: 1, model: 'gpt-5.5', choices: [{ index: 0, delta: {}, finish_reason: 'tool_calls' }] },
    ];
    let text = '';
    for (const c of chunks) {
      const ev = { event: undefined, data: JSON.stringify(c) };
      text += writer.write(ev, reader.read(ev));
    }
    text += writer.end({ usage: { ...emptyUsage(), promptTokens: 10, completionTokens: 5 }, reported: true });
    const events = framesToEvents(text).map((e) => JSON.parse(e.data) as Msg);
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.custom_tool_call_input.delta',
      'response.custom_tool_call_input.done',
      'response.output_item.done',
      'response.completed',
    ]);
    expect(events[2]!.item).toMatchObject({ type: 'custom_tool_call', call_id: 'call_a', name: 'apply_patch', input: '' });
    expect(events[3]).toMatchObject({ delta: patch, output_index: 0 });
    expect(events[4]).toMatchObject({ input: patch, item_id: (events[2]!.item as Msg).id });
    const done = { type: 'custom_tool_call', id: (events[2]!.item as Msg).id, call_id: 'call_a', name: 'apply_patch', input: patch, status: 'completed' };
    expect(events[5]!.item).toEqual(done);
    expect((events[6]!.response as Msg).output).toEqual([done]);
    expect(events.map((e) => e.sequence_number)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});
