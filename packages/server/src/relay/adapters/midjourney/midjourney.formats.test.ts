import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import type { MjRow } from '../../../modules/tasks/mj-store.js';
import { chargeable } from '../../mj/mj-action.js';
import { midjourneyTaskAdapter as kind } from './task-adapter.js';
import type { MjSubmitReply, MjTask } from './wire-types.js';

/** The proxy's documented Task objects applied to a stored row: the kind's mapping, no server. */
const body = <T>(name: string) => providerFixture('midjourney', name).body as T;

/** A task as the submit stored it (mj-submit.ts): submitted, nothing back from the proxy yet. */
const stored: MjRow = {
  id: 7,
  code: 1,
  user_id: 3,
  action: 'IMAGINE',
  mj_id: '1320098173412546',
  prompt: 'Cat --ar 16:9',
  prompt_en: '',
  description: '提交成功',
  state: 'order-42',
  submit_time: 1689231405854,
  start_time: 0,
  finish_time: 0,
  image_url: '',
  status: 'SUBMITTED',
  progress: '0%',
  fail_reason: '',
  channel_id: 2,
  quota: 50_000,
  request_id: 'req-stored',
  buttons: '[]',
  properties: JSON.stringify({ modelgateNotify: { nonce: 'n0', hook: '' } }),
};

describe('Midjourney task kind: proxy Task → stored row', () => {
  const [done, failed] = body<MjTask[]>('task.list.response');

  it('reads the task id and state of each documented item', () => {
    expect([done, failed, body<MjTask>('task.in-progress.response')].map((t) => [kind.itemId({ ...t }), kind.stateOf({ ...t })])).toEqual([
      ['1320098173412546', 'success'],
      ['1320098173412548', 'failure'],
      ['1320098173412546', 'pending'],
    ]);
  });

  it('a finished grid: every column copied, buttons kept, the notify binding preserved', () => {
    expect(kind.step(stored, { ...done })).toEqual({
      state: 'success',
      patch: {
        progress: '100%',
        prompt_en: 'Cat --ar 16:9',
        state: 'order-42',
        submit_time: 1689231405854,
        start_time: 1689231442755,
        finish_time: 1689231544312,
        image_url: 'https://cdn.discordapp.com/attachments/1/2/cat.png',
        status: 'SUCCESS',
        fail_reason: '',
        properties: JSON.stringify({ finalPrompt: 'Cat --ar 16:9', finalZhPrompt: '', modelgateNotify: { nonce: 'n0', hook: '' } }),
        buttons: JSON.stringify(done!.buttons),
      },
    });
  });

  it('a failure (the open proxy sends progress "") ends at 100 % as FAILURE', () => {
    const step = kind.step({ ...stored, mj_id: failed!.id }, { ...failed });
    expect(step?.state).toBe('failure');
    expect(step?.patch).toMatchObject({ status: 'FAILURE', progress: '100%', fail_reason: '[Invalid parameter] Invalid value', image_url: '', finish_time: 1689231450000 });
  });

  it('progress in between is pending; the same word twice changes nothing', () => {
    const running = body<MjTask>('task.in-progress.response');
    const step = kind.step(stored, { ...running });
    expect(step).toMatchObject({ state: 'pending', patch: { status: 'IN_PROGRESS', progress: '46%', image_url: 'https://cdn.discordapp.com/attachments/1/2/cat_preview.webp' } });
    expect(kind.step({ ...stored, ...step!.patch }, { ...running })).toBeNull();
  });

  it('never stores a non-http image link from the proxy', () => {
    expect(kind.step(stored, { ...done, imageUrl: 'javascript:alert(1)' })?.patch.image_url).toBe('');
  });

  it('the giving-up item fails the task with the reason', () => {
    expect(kind.step(stored, kind.failure('上游任务超时（超过1小时）'))).toMatchObject({ state: 'failure', patch: { status: 'FAILURE', progress: '100%', fail_reason: '上游任务超时（超过1小时）' } });
  });
});

describe('Midjourney submit replies: which are charged (providers-china-and-tasks §8.3)', () => {
  it('submitted and queued are accepted; not-found and a banned prompt are not', () => {
    const codes = ['imagine.response', 'imagine.queued.response', 'error.not-found', 'error.banned-prompt'].map((n) => body<MjSubmitReply>(n).code);
    expect(codes.map((c) => [c, chargeable('IMAGINE', c)])).toEqual([
      [1, true],
      [22, true],
      [3, false],
      [24, false],
    ]);
    expect(kind.price.model('IMAGINE')).toBe('mj_imagine');
  });
});
