import { createRequire } from 'node:module';
import { setTracing, tracingOn } from './tracing.js';
import type { TracingSettings } from './tracing-config.js';

/**
 * startTracing — starts the OpenTelemetry SDK when `settings` say tracing is on (tracing-config.ts), else does
 * nothing at all: the SDK's modules are imported here, on demand, so a process without `OTEL_*` variables never
 * loads them, starts no timer and opens no socket.
 *
 * On: a NodeTracerProvider (service.name = `OTEL_SERVICE_NAME`, else the service; `OTEL_RESOURCE_ATTRIBUTES` added)
 * registered globally with the AsyncLocalStorage context manager and the W3C trace-context propagator; a batch
 * span processor (the `OTEL_BSP_*` variables) in front of the OTLP/HTTP exporter (JSON or protobuf, by
 * `OTEL_EXPORTER_OTLP_PROTOCOL`; endpoint, headers and timeout from the standard variables) and/or the console
 * exporter; and the `pg` instrumentation (a span per query, only inside a traced request: requireParentSpan).
 * Idempotent: one provider per process (the all-in-one process starts it once for every module).
 */
export async function startTracing(service: string, settings: TracingSettings): Promise<void> {
  if (!settings.enabled || tracingOn()) return;
  const [sdk, resources, pgInstrumentation] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/instrumentation-pg'),
  ]);
  const exporters = [];
  if (settings.exporters.includes('otlp')) {
    const { OTLPTraceExporter } =
      settings.protocol === 'http/protobuf' ? await import('@opentelemetry/exporter-trace-otlp-proto') : await import('@opentelemetry/exporter-trace-otlp-http');
    exporters.push(new OTLPTraceExporter());
  }
  if (settings.exporters.includes('console')) exporters.push(new sdk.ConsoleSpanExporter());
  const detected = resources.detectResources({ detectors: [resources.envDetector] });
  const resource = resources
    .resourceFromAttributes({ 'service.name': settings.serviceName ?? service, 'service.namespace': 'nodes-manager', 'process.pid': process.pid })
    .merge(detected)
    .merge(settings.serviceName ? resources.resourceFromAttributes({ 'service.name': settings.serviceName }) : null);
  const provider = new sdk.NodeTracerProvider({ resource, spanProcessors: exporters.map((e) => new sdk.BatchSpanProcessor(e)) });
  provider.register();
  instrumentPg(new pgInstrumentation.PgInstrumentation({ requireParentSpan: true, enhancedDatabaseReporting: false }), provider);
  setTracing(true, async () => {
    await provider.shutdown();
    setTracing(false);
  });
}

type PgInstrumentationLike = InstanceType<typeof import('@opentelemetry/instrumentation-pg').PgInstrumentation>;

/**
 * instrumentPg — applies the pg instrumentation to the `pg` module this process already loaded. The services are ES
 * modules: `pg` was imported before the SDK started, so the instrumentation's require hook never sees it; its patch
 * (Client.prototype.query and connect) is applied to the loaded module directly — the prototype every pool client
 * of TypeORM and the migration lock share.
 */
function instrumentPg(instrumentation: PgInstrumentationLike, provider: Parameters<PgInstrumentationLike['setTracerProvider']>[0]): void {
  instrumentation.setTracerProvider(provider);
  const require = createRequire(import.meta.url);
  const pg = require('pg') as object;
  const version = (require('pg/package.json') as { version: string }).version;
  for (const def of instrumentation.getModuleDefinitions()) if (def.name === 'pg') def.patch?.(pg, version);
}
