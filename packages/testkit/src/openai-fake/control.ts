import { invalidRequest, type RequestContext } from './context.js';
import { parseFault, type FaultBook } from './faults.js';
import { sendJson } from './respond.js';
import type { FakeBalance, FakeOpenAI } from './types.js';
import { isRecord } from './util.js';

/**
 * `/__fake/*`: the same controls as the `FakeOpenAI` object, over HTTP, for when the fake runs as
 * a separate process (the CLI demo upstream, browser tests). Not part of OpenAI's surface.
 *
 * - `POST /__fake/fault` body: a `FakeFault` or `null`
 * - `POST /__fake/balance` body: a partial `FakeBalance`
 * - `POST /__fake/reset`
 * - `GET /__fake/requests`
 */
export async function handleControl(ctx: RequestContext, raw: Buffer, fake: FakeOpenAI, faults: FaultBook): Promise<void> {
  let body: unknown;
  try {
    body = raw.length > 0 ? (JSON.parse(raw.toString('utf8')) as unknown) : undefined;
  } catch {
    throw invalidRequest('control body must be JSON');
  }
  const action = `${ctx.method} ${ctx.route}`;
  switch (action) {
    case 'POST /__fake/fault':
      try {
        faults.setInstance(body === null || body === undefined ? null : parseFault(body));
      } catch (err) {
        throw invalidRequest((err as Error).message);
      }
      break;
    case 'POST /__fake/balance':
      if (!isRecord(body)) throw invalidRequest('balance must be a JSON object');
      fake.setBalance(body as Partial<FakeBalance>);
      break;
    case 'POST /__fake/reset':
      fake.reset();
      break;
    case 'GET /__fake/requests':
      await sendJson(ctx, { requests: fake.requests });
      return;
    default:
      throw invalidRequest(`unknown control action ${action}`);
  }
  await sendJson(ctx, { ok: true });
}
