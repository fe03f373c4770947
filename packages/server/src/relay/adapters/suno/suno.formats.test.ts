import { providerFixture } from '@modelgate/testkit';
import { describe, expect, it } from 'vitest';
import type { TaskRow } from '../../../modules/tasks/task-store.js';
import { sunoTaskAdapter as kind } from './task-adapter.js';
import type { SunoEnvelope, SunoTask } from './wire-types.js';

/** Suno-API's documented fetch items applied to a stored row: the kind's mapping, no server. */
const tasks = (name: string) => (providerFixture('suno', name).body as SunoEnvelope<SunoTask[]>).data;

/** A task as the submit stored it (suno.routes.ts). */
const stored: TaskRow = {
  id: 5,
  created_at: 1716192901,
  updated_at: 1716192901,
  task_id: '736a6f88-bd29-4b1e-b110-37132a5325ac',
  platform: 'suno',
  user_id: 3,
  channel_id: 4,
  quota: 50_000,
  request_id: 'req-stored',
  action: 'MUSIC',
  status: 'NOT_START',
  fail_reason: '',
  submit_time: 1716192901,
  start_time: 0,
  finish_time: 0,
  progress: '0%',
  properties: '{}',
  data: 'null',
};

describe('Suno task kind: Suno-API task → stored row', () => {
  const [done, failed] = tasks('fetch.response');
  const [running] = tasks('fetch.in-progress.response');

  it('reads the task id and state of each documented item', () => {
    expect([done, failed, running].map((t) => [kind.itemId({ ...t }), kind.stateOf({ ...t })])).toEqual([
      ['736a6f88-bd29-4b1e-b110-37132a5325ac', 'success'],
      ['9e0f4a52-6c8d-4b3e-8f21-4d5a6b7c8d9e', 'failure'],
      ['736a6f88-bd29-4b1e-b110-37132a5325ac', 'pending'],
    ]);
  });

  it('a finished task: status and times copied, data replaced, 100 %', () => {
    expect(kind.step(stored, { ...done })).toEqual({
      state: 'success',
      patch: { status: 'SUCCESS', fail_reason: '', submit_time: 1716192901, start_time: 1716192903, finish_time: 1716193080, data: JSON.stringify(done!.data), progress: '100%' },
    });
  });

  it('a clip error is a failure at 100 % with its reason', () => {
    expect(kind.step({ ...stored, task_id: failed!.task_id }, { ...failed })).toMatchObject({
      state: 'failure',
      patch: { status: 'FAILURE', progress: '100%', fail_reason: 'Unable to generate: lyrics contain artist name' },
    });
  });

  it('streaming clips keep the task open (Suno sends no progress); the same word twice changes nothing', () => {
    const step = kind.step(stored, { ...running });
    expect(step).toMatchObject({ state: 'pending', patch: { status: 'IN_PROGRESS', progress: '0%', start_time: 1716192903 } });
    expect(kind.step({ ...stored, ...step!.patch }, { ...running })).toBeNull();
  });

  it('prices an action as suno_<action>', () => {
    expect([kind.price.model('MUSIC'), kind.price.defaultUsd('suno_music'), kind.price.model('LYRICS'), kind.price.defaultUsd('suno_lyrics')]).toEqual(['suno_music', 0.1, 'suno_lyrics', 0.01]);
  });
});
