import { SpanStatusCode, trace } from '@opentelemetry/api';
import type { RuntimeChannel } from './channel-cache.js';
import type { Attempt, Run } from './relay-run.js';

const tracer = trace.getTracer('modelgate.relay');

/**
 * One span per upstream attempt (tracing/tracing.ts): channel, model, retry number, the status
 * answered and the request id that joins it to the logs and the bill. A no-op while tracing is off.
 */
export async function tracedAttempt(run: Run, ch: RuntimeChannel, retry: number, attempt: (run: Run, ch: RuntimeChannel) => Promise<Attempt>): Promise<Attempt> {
  const span = tracer.startSpan('relay.attempt', {
    attributes: {
      'modelgate.request_id': run.requestId,
      'modelgate.channel.id': ch.id,
      'modelgate.channel.type': ch.target.type,
      'modelgate.model': run.input.model,
      'modelgate.retry': retry,
      'modelgate.stream': run.input.stream,
      'http.route': run.req.routeOptions.url ?? '',
    },
  });
  try {
    const result = await attempt(run, ch);
    if (result.ok) {
      span.setAttribute('http.response.status_code', 200);
    } else {
      span.setAttribute('http.response.status_code', result.error.status);
      span.setAttribute('modelgate.retryable', result.retryable);
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error.code ?? result.error.type });
    }
    return result;
  } catch (err) {
    span.recordException(err as Error);
    span.setStatus({ code: SpanStatusCode.ERROR, message: 'internal error' });
    throw err;
  } finally {
    span.end();
  }
}
