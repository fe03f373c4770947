import type { Channel } from '@modelgate/shared/api';
import type { ChannelRow } from '../../db/schema.js';

/**
 * A channel as the console expects it (console-api.md G5/G6): strings never null, `models` and
 * `group` comma strings, and the key never included — `key: ""` like the reference.
 */
export function channelView(c: ChannelRow): Channel {
  return {
    id: Number(c.id),
    type: Number(c.type),
    key: '' as const,
    openai_organization: c.openai_organization ?? '',
    test_model: c.test_model ?? '',
    status: Number(c.status),
    name: c.name ?? '',
    weight: Number(c.weight),
    created_time: Number(c.created_time),
    test_time: Number(c.test_time),
    response_time: Number(c.response_time),
    base_url: c.base_url ?? '',
    other: c.other ?? '',
    balance: Number(c.balance),
    balance_updated_time: Number(c.balance_updated_time),
    models: c.models ?? '',
    group: c.group ?? '',
    used_quota: Number(c.used_quota),
    model_mapping: c.model_mapping ?? '',
    status_code_mapping: c.status_code_mapping ?? '',
    priority: Number(c.priority),
    auto_ban: Number(c.auto_ban),
    other_info: c.other_info ?? '',
    tag: c.tag ?? '',
    setting: c.setting ?? '',
    max_input_tokens: Number(c.max_input_tokens),
  };
}

export type ChannelView = Channel;
