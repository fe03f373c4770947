import { describe, expect, it } from 'vitest';
import type { Token } from './api';
import { buildTokenInputs, DEFAULT_TOKEN_VALUES, tokenToFormValues } from './token-form';

const values = { ...DEFAULT_TOKEN_VALUES, name: 'ci' };

describe('buildTokenInputs', () => {
  it('requires a name', () => {
    expect(buildTokenInputs({ ...values, name: '  ' }, 'create')).toEqual({ problem: 'nameRequired' });
  });

  it('rejects an unparsable expiry', () => {
    expect(buildTokenInputs({ ...values, expiry: 'next week' }, 'create')).toEqual({ problem: 'badExpiry' });
  });

  it('sends -1 for never and Unix seconds for a date', () => {
    const never = buildTokenInputs(values, 'create');
    expect('inputs' in never && never.inputs[0].expired_time).toBe(-1);
    const dated = buildTokenInputs({ ...values, expiry: '2030-01-02 03:04:05' }, 'create');
    expect('inputs' in dated && dated.inputs[0].expired_time).toBe(new Date(2030, 0, 2, 3, 4, 5).getTime() / 1000);
  });

  it('rejects negative or fractional quota unless unlimited', () => {
    expect(buildTokenInputs({ ...values, remain_quota: -1 }, 'create')).toEqual({ problem: 'badQuota' });
    expect(buildTokenInputs({ ...values, remain_quota: 1.5 }, 'create')).toEqual({ problem: 'badQuota' });
    expect('inputs' in buildTokenInputs({ ...values, remain_quota: -1, unlimited_quota: true }, 'create')).toBe(true);
  });

  it('creates N tokens, extra ones named with a dash and 6 random characters', () => {
    let n = 0;
    const result = buildTokenInputs({ ...values, count: 3 }, 'create', () => `abc12${n++}`);
    expect('inputs' in result && result.inputs.map((input) => input.name)).toEqual(['ci', 'ci-abc120', 'ci-abc121']);
  });

  it('uses real random suffixes by default', () => {
    const result = buildTokenInputs({ ...values, count: 2 }, 'create');
    expect('inputs' in result && result.inputs[1].name).toMatch(/^ci-[A-Za-z0-9]{6}$/);
  });

  it('rejects a count below 1 and ignores count when editing or unlimited', () => {
    expect(buildTokenInputs({ ...values, count: 0 }, 'create')).toEqual({ problem: 'badCount' });
    expect(buildTokenInputs({ ...values, rpm_limit: -1 }, 'create')).toEqual({ problem: 'badLimit' });
    expect(buildTokenInputs({ ...values, tpm_limit: 1.5 }, 'create')).toEqual({ problem: 'badLimit' });
    const edit = buildTokenInputs({ ...values, count: 5 }, 'edit');
    expect('inputs' in edit && edit.inputs).toHaveLength(1);
    const unlimited = buildTokenInputs({ ...values, count: 5, unlimited_quota: true }, 'create');
    expect('inputs' in unlimited && unlimited.inputs).toHaveLength(1);
  });

  it('joins model limits with commas and sends them only when enabled', () => {
    const on = buildTokenInputs({ ...values, model_limits_enabled: true, model_limits: ['a', 'b'] }, 'create');
    expect('inputs' in on && on.inputs[0].model_limits).toBe('a,b');
    const off = buildTokenInputs({ ...values, model_limits: ['a'] }, 'create');
    expect('inputs' in off && off.inputs[0].model_limits).toBe('');
  });

  it('sends only the windows that cap something, and refuses a negative or fractional cap', () => {
    const limits = { '5h': { quota: 0, requests: 0 }, day: { quota: 500_000, requests: 0 }, week: { quota: 0, requests: 70 }, month: { quota: null, requests: null } };
    const result = buildTokenInputs({ ...values, period_limits: limits as never }, 'create');
    expect('inputs' in result && result.inputs[0].period_limits).toEqual({ day: { quota: 500_000, requests: 0 }, week: { quota: 0, requests: 70 } });
    expect(buildTokenInputs({ ...values, period_limits: { day: { quota: -1, requests: 0 } } }, 'create')).toEqual({ problem: 'badPeriodLimit' });
    expect(buildTokenInputs({ ...values, period_limits: { week: { quota: 0, requests: 2.5 } } }, 'create')).toEqual({ problem: 'badPeriodLimit' });
  });

  it('keeps allow_ips one per line without blanks', () => {
    const result = buildTokenInputs({ ...values, allow_ips: ' 1.2.3.4 \n\n10.0.0.0/8\n' }, 'create');
    expect('inputs' in result && result.inputs[0].allow_ips).toBe('1.2.3.4\n10.0.0.0/8');
  });
});

describe('tokenToFormValues', () => {
  it('splits model limits and formats expiry', () => {
    const token = {
      id: 1,
      user_id: 1,
      accessed_time: 0,
      name: 't',
      key: 'k',
      status: 1,
      remain_quota: 10,
      unlimited_quota: false,
      used_quota: 0,
      created_time: 0,
      expired_time: -1,
      model_limits_enabled: true,
      model_limits: 'gpt-4o, gpt-4o-mini',
      allow_ips: '',
      group: 'vip',
      rpm_limit: 60,
      tpm_limit: 0,
      period_limits: { day: { quota: 0, requests: 100 } },
    } satisfies Token;
    expect(tokenToFormValues(token)).toMatchObject({
      expiry: '',
      model_limits: ['gpt-4o', 'gpt-4o-mini'],
      group: 'vip',
      remain_quota: 10,
      rpm_limit: 60,
      tpm_limit: 0,
      // Every window in the form, the unset ones at 0.
      period_limits: { '5h': { quota: 0, requests: 0 }, day: { quota: 0, requests: 100 }, week: { quota: 0, requests: 0 }, month: { quota: 0, requests: 0 } },
    });
  });
});
