import { describe, expect, it } from 'vitest';
import { LOG_TYPE_FILTERS, isConsumeLog, logTypeColor } from './log-types.js';
import { ROLE_VALUES, isAdminRole, isRootRole, roleTag } from './roles.js';
import { autoDisableInfo, autoDisableOtherInfo, channelStatusTag, redemptionStatusTag, tokenStatusTag, userStatusTag } from './statuses.js';
import { MJ_ACTIONS, mjActionModel, taskStatusColor } from './task-states.js';
import { DEFAULT_MODEL_PRICE } from './default-ratios.js';

describe('roles (spec §6)', () => {
  it('rank admin at 10 and root at 100, labelled with the console colours', () => {
    expect(ROLE_VALUES).toEqual([1, 10, 100]);
    expect([isAdminRole(10), isAdminRole(9), isRootRole(100), isRootRole(10)]).toEqual([true, false, true, false]);
    expect([100, 10, 1, 0].map((r) => roleTag(r))).toEqual([
      { key: 'root', color: 'orange' },
      { key: 'admin', color: 'gold' },
      { key: 'user', color: 'blue' },
      { key: 'unknown' },
    ]);
  });
});

describe('statuses (spec §4)', () => {
  it('label token statuses, an enabled token with model limits as "limited"', () => {
    expect(tokenStatusTag(1, false)).toEqual({ key: 'enabled', color: 'green' });
    expect(tokenStatusTag(1, true)).toEqual({ key: 'limited', color: 'cyan' });
    expect([2, 3, 4, 9].map((s) => tokenStatusTag(s, false).key)).toEqual(['disabled', 'expired', 'exhausted', 'unknown']);
  });
  it('label user, channel and redemption statuses', () => {
    expect([1, 2, 3].map((s) => userStatusTag(s))).toEqual([
      { key: 'active', color: 'success' },
      { key: 'banned', color: 'error' },
      { key: 'unknown', color: 'warning' },
    ]);
    expect([1, 2, 3, 0].map((s) => channelStatusTag(s).key)).toEqual(['enabled', 'disabled', 'autoDisabled', 'unknown']);
    expect(channelStatusTag(3).color).toBe('gold');
    expect([1, 2, 3, 7].map((s) => redemptionStatusTag(s).key)).toEqual(['unused', 'disabled', 'used', 'unknown']);
  });
  it("read back the reason and time the server writes into an auto-disabled channel's other_info", () => {
    const other_info = autoDisableOtherInfo('bad key', 1700000000);
    expect(autoDisableInfo({ status: 3, other_info })).toEqual({ reason: 'bad key', time: 1700000000 });
    expect(autoDisableInfo({ status: 2, other_info })).toBeNull();
    expect(autoDisableInfo({ status: 3, other_info: '{oops' })).toBeNull();
  });
});

describe('log types and task states', () => {
  it('filter "all" first and colour each type', () => {
    expect(LOG_TYPE_FILTERS).toEqual([0, 1, 2, 3, 4]);
    expect([1, 2, 3, 4, 9].map(logTypeColor)).toEqual(['cyan', 'green', 'orange', 'purple', 'default']);
    expect([0, 2, 1].map(isConsumeLog)).toEqual([true, true, false]);
  });
  it('price every priced Midjourney action under its default ModelPrice name', () => {
    for (const action of MJ_ACTIONS) {
      const model = mjActionModel(action);
      if (['IMAGINE', 'UPSCALE', 'DESCRIBE', 'BLEND', 'SWAP_FACE', 'INPAINT', 'PAN'].includes(action)) expect(DEFAULT_MODEL_PRICE, model).toHaveProperty([model]);
    }
    expect(mjActionModel('SWAP_FACE')).toBe('swap_face');
    expect(mjActionModel('CUSTOM_ZOOM')).toBe('mj_custom_zoom');
    expect([taskStatusColor('SUCCESS'), taskStatusColor(''), taskStatusColor('weird')]).toEqual(['green', 'geekblue', 'default']);
  });
});
