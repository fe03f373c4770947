import type { ModelPricing } from '@modelgate/shared/api';
import { describe, expect, it } from 'vitest';
import { initialGroup, visibleModels } from './pricing-math';

const model = (over: Partial<ModelPricing>): ModelPricing => ({
  model_name: 'm',
  quota_type: 0,
  model_ratio: 1,
  model_price: 0,
  owner_by: 'openai',
  completion_ratio: 1,
  enable_groups: ['default'],
  ...over,
});

describe('pricing math', () => {
  it('shows gpt models first, filters by group and search', () => {
    const models = [model({ model_name: 'claude-3' }), model({ model_name: 'gpt-4o', enable_groups: ['vip'] }), model({ model_name: 'gpt-4o-mini' }), model({ model_name: 'abab' })];
    expect(visibleModels(models, '', '').map((m) => m.model_name)).toEqual(['gpt-4o', 'gpt-4o-mini', 'abab', 'claude-3']);
    expect(visibleModels(models, 'default', 'GPT').map((m) => m.model_name)).toEqual(['gpt-4o-mini']);
  });

  it('starts with the viewer’s group when usable, else default', () => {
    expect(initialGroup({ default: 1, vip: 0.5 }, 'vip')).toBe('vip');
    expect(initialGroup({ default: 1 }, 'svip')).toBe('default');
    expect(initialGroup({ vip: 1 }, undefined)).toBe('vip');
  });
});
