import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '../config/config.js';
import { loadWithTracing } from '../bootstrap/bootstrap.js';
import { carrierOf, inChildSpan, tracedContext, tracingOn } from './tracing.js';
import { tracingSettings } from './tracing-config.js';

const ENDPOINT = 'http://collector.observability:4318';

describe('tracing settings', () => {
  it.each([
    ['no variable at all', {}, false, 'no OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_TRACES_EXPORTER is set'],
    ['an OTLP endpoint', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, true, 'an OTLP endpoint is set'],
    ['a traces endpoint', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }, true, 'an OTLP endpoint is set'],
    ['an exporter named', { OTEL_TRACES_EXPORTER: 'console' }, true, 'OTEL_TRACES_EXPORTER is console'],
    ['an endpoint, but the SDK disabled', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }, false, 'OTEL_SDK_DISABLED is true'],
    ['an endpoint, but the exporter none', { OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, false, 'OTEL_TRACES_EXPORTER is none'],
    ['only unrelated OTEL variables', { OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER: 'always_on' }, false, 'no OTEL_EXPORTER_OTLP_ENDPOINT nor OTEL_TRACES_EXPORTER is set'],
  ])('%s → on: %s', (_what, env, enabled, why) => {
    expect(tracingSettings('uncordon', env)).toMatchObject({ enabled, why });
  });

  it('sends to <endpoint>/v1/traces, or the traces endpoint as given, over http/json unless told protobuf', () => {
    expect(tracingSettings('x', { OTEL_EXPORTER_OTLP_ENDPOINT: `${ENDPOINT}/` })).toMatchObject({ endpoint: `${ENDPOINT}/v1/traces`, protocol: 'http/json', exporters: ['otlp'] });
    expect(tracingSettings('x', { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/custom`, OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf' })).toMatchObject({ endpoint: `${ENDPOINT}/custom`, protocol: 'http/protobuf' });
    expect(tracingSettings('x', { OTEL_TRACES_EXPORTER: 'otlp' })).toMatchObject({ endpoint: 'http://localhost:4318/v1/traces' });
  });

  it.each([
    ['OTEL_TRACES_EXPORTER', 'zipkin'],
    ['OTEL_EXPORTER_OTLP_ENDPOINT', 'collector:4318'],
    ['OTEL_EXPORTER_OTLP_PROTOCOL', 'grpc'],
    ['OTEL_TRACES_SAMPLER', 'sometimes'],
    ['OTEL_TRACES_SAMPLER_ARG', '2'],
    ['OTEL_SDK_DISABLED', 'perhaps'],
  ])('refuses %s=%s, naming it', (variable, value) => {
    let err: unknown;
    try {
      tracingSettings('uncordon', { [variable]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).problems.map((p) => p.variable)).toEqual([variable]);
  });

  it("is validated with the service's own configuration: one error lists the problems of both", () => {
    const load = () => {
      throw new ConfigError('uncordon', [{ variable: 'DATABASE_URL', problem: 'is required' }]);
    };
    expect(() => loadWithTracing('uncordon', load, { OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/DATABASE_URL: is required[\s\S]*OTEL_EXPORTER_OTLP_PROTOCOL: must be one of/);
  });
});

describe('tracing off (no SDK started)', () => {
  it('every helper is inert: no traced context, no carrier, work runs without a span', async () => {
    expect(tracingOn()).toBe(false);
    expect(tracedContext()).toBeUndefined();
    expect(carrierOf()).toBeUndefined();
    expect(await inChildSpan('x', {}, async (span) => span)).toBeUndefined();
  });
});
