import { trace } from '@opentelemetry/api';
import type { Logger } from '../log/logger.js';

export interface Tracing {
  /** Sends the spans still buffered and stops exporting. */
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL the standard variables name (a signal-specific one is used as given). */
function tracesUrl(env: NodeJS.ProcessEnv): string {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  return `${env.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/+$/, '')}/v1/traces`;
}

const OFF: Tracing = { shutdown: async () => undefined };

/**
 * OpenTelemetry tracing (docs/operations.md#tracing): when OTEL_EXPORTER_OTLP_ENDPOINT is set, spans
 * are batched and exported over OTLP/HTTP (OTEL_EXPORTER_OTLP_ENDPOINT + `/v1/traces`, or
 * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT as given); the SDK is loaded only then. Unset, the API's tracer is a no-op and a span
 * costs one object allocation.
 */
export async function startTracing(env: NodeJS.ProcessEnv, attributes: { version: string; nodeId: string }, log: Pick<Logger, 'info'>): Promise<Tracing> {
  if (!env.OTEL_EXPORTER_OTLP_ENDPOINT && !env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return OFF;
  const [{ BasicTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, { resourceFromAttributes }] = await Promise.all([
    import('@opentelemetry/sdk-trace-base'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ]);
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({
      'service.name': env.OTEL_SERVICE_NAME || 'modelgate',
      'service.version': attributes.version,
      'service.instance.id': attributes.nodeId,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url: tracesUrl(env) }))],
  });
  trace.setGlobalTracerProvider(provider);
  log.info({ url: tracesUrl(env) }, 'exporting traces over OTLP');
  return {
    async shutdown() {
      await provider.shutdown();
      trace.disable();
    },
  };
}
