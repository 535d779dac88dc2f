import { z } from 'zod';
import { ConfigError, env, loadConfig, type EnvShape } from '../config/config.js';

/** The exporters a process can be given in `OTEL_TRACES_EXPORTER` (docs/observability.md). */
export const TRACE_EXPORTERS = ['otlp', 'console', 'none'] as const;
/** The OTLP transports shipped: HTTP with JSON or protobuf bodies (gRPC is not). */
export const OTLP_PROTOCOLS = ['http/json', 'http/protobuf'] as const;
const SAMPLERS = ['always_on', 'always_off', 'traceidratio', 'parentbased_always_on', 'parentbased_always_off', 'parentbased_traceidratio'] as const;

const httpUrl = () => z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : v), z.string().optional().refine((v) => v === undefined || /^https?:\/\/[^\s]+$/i.test(v) && URL.canParse(v), 'must be an http:// or https:// URL'));
const optionalOneOf = <T extends string>(values: readonly [T, ...T[]]) =>
  z.preprocess((v) => (typeof v === 'string' && v.trim() === '' ? undefined : typeof v === 'string' ? v.trim().toLowerCase() : v), z.enum(values, { error: `must be one of ${values.join(', ')}` }).optional());

/**
 * The standard OpenTelemetry variables the services read (the SDK reads the rest of the `OTEL_*` family itself —
 * headers, timeouts, batch sizes, resource attributes). Validated at start with the service's own configuration:
 * a wrong value refuses the start (exit 78) instead of silently exporting nothing.
 */
export const tracingShape = {
  OTEL_SDK_DISABLED: env.bool(false),
  OTEL_TRACES_EXPORTER: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() !== '' ? v.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean) : undefined),
    z.array(z.enum(TRACE_EXPORTERS, { error: `must be a list of ${TRACE_EXPORTERS.join(', ')} (other exporters are not shipped)` })).optional(),
  ),
  OTEL_EXPORTER_OTLP_ENDPOINT: httpUrl(),
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: httpUrl(),
  OTEL_EXPORTER_OTLP_PROTOCOL: optionalOneOf(OTLP_PROTOCOLS),
  OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: optionalOneOf(OTLP_PROTOCOLS),
  OTEL_TRACES_SAMPLER: optionalOneOf(SAMPLERS),
  OTEL_TRACES_SAMPLER_ARG: z.preprocess((v) => (typeof v === 'string' && v.trim() !== '' ? Number(v) : undefined), z.number({ error: 'must be a number' }).min(0, 'must be between 0 and 1').max(1, 'must be between 0 and 1').optional()),
  OTEL_SERVICE_NAME: env.optionalString(),
} satisfies EnvShape;

/** TracingSettings — whether this process traces, and how it exports. */
export interface TracingSettings {
  readonly enabled: boolean;
  /** Why it is on or off, in words, for the start-up log line. */
  readonly why: string;
  readonly exporters: readonly ('otlp' | 'console')[];
  readonly protocol: (typeof OTLP_PROTOCOLS)[number];
  /** Where spans go (the traces endpoint), for the start-up log line; undefined without an OTLP exporter. */
  readonly endpoint?: string;
  readonly serviceName?: string;
}

/**
 * tracingSettings — tracing is **off** unless the variables ask for it: `OTEL_SDK_DISABLED=true` or
 * `OTEL_TRACES_EXPORTER=none` turn it off whatever else is set; an OTLP endpoint (`OTEL_EXPORTER_OTLP_ENDPOINT` or
 * `…_TRACES_ENDPOINT`) or an exporter named in `OTEL_TRACES_EXPORTER` turn it on. Throws a {@link ConfigError}
 * naming every bad variable.
 */
export function tracingSettings(service: string, source: NodeJS.ProcessEnv = process.env): TracingSettings {
  const c = loadConfig({ service, shape: tracingShape, secrets: [] }, source);
  const protocol = c.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? c.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/json';
  const endpoint = c.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? (c.OTEL_EXPORTER_OTLP_ENDPOINT ? `${c.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, '')}/v1/traces` : undefined);
  const named = c.OTEL_TRACES_EXPORTER;
  const off = (why: string): TracingSettings => ({ enabled: false, why, exporters: [], protocol });
  if (c.OTEL_SDK_DISABLED) return off('OTEL_SDK_DISABLED is true');
  if (named?.includes('none')) {
    if (named.length > 1) throw new ConfigError(service, [{ variable: 'OTEL_TRACES_EXPORTER', problem: 'none cannot be combined with another exporter' }]);
    return off('OTEL_TRACES_EXPORTER is none');
  }
  const exporters = (named ?? (endpoint ? ['otlp'] : [])) as ('otlp' | 'console')[];
  if (exporters.length === 0) return off('no OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_TRACES_EXPORTER is set');
  const otlpEndpoint = exporters.includes('otlp') ? (endpoint ?? 'http://localhost:4318/v1/traces') : undefined;
  return {
    enabled: true,
    why: named ? `OTEL_TRACES_EXPORTER is ${named.join(',')}` : 'an OTLP endpoint is set',
    exporters,
    protocol,
    ...(otlpEndpoint ? { endpoint: otlpEndpoint } : {}),
    ...(c.OTEL_SERVICE_NAME ? { serviceName: c.OTEL_SERVICE_NAME } : {}),
  };
}
