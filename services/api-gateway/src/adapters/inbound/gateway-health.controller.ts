import { Controller, Get, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import type client from 'prom-client';
import { ServiceNames, serviceStatusPattern, type ServiceName } from '@nodes-manager/contracts';
import { ApiPublicRoute } from './api-docs.js';
import { CLOCK, COMMAND_BUS, HEALTH_REGISTRY, METRICS_REGISTRY, Public, type Clock, type CommandBus, type HealthRegistry, CodedError } from '@nodes-manager/platform';

/**
 * GatewayHealthController — `/healthz` (alive), `/readyz` (the gateway's own checks, plus each service's answer to
 * `service.status.<service>`; the gateway stays ready while a backend is down, since it answers 503 for that
 * backend's routes, and the body says which), `/metrics`.
 */
const check = { type: 'object', required: ['ok'], properties: { ok: { type: 'boolean' }, detail: { type: 'string' } } };
const checks = { type: 'object', description: 'each check by name', additionalProperties: check };
/** readiness — the `/readyz` body: the gateway's own checks and each service's answer (or why it gave none). */
const readiness = (status: string[]) => ({
  type: 'object',
  required: ['status', 'checks', 'services'],
  properties: {
    status: { type: 'string', enum: status },
    checks,
    services: {
      type: 'object',
      description: 'each service behind the gateway by name',
      additionalProperties: { type: 'object', required: ['ready'], properties: { ready: { type: 'boolean' }, degraded: { type: 'boolean' }, checks, error: { $ref: '#/components/schemas/ErrorBody' } } },
    },
  },
});

/** How long the services' readiness answers are reused by `/readyz`. */
const STATUS_CACHE_MS = 2000;

@Controller()
export class GatewayHealthController {
  private cached?: { at: number; value: Record<string, unknown> };
  private pending?: Promise<Record<string, unknown>>;

  constructor(
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(COMMAND_BUS) private readonly bus: CommandBus,
    @Inject(METRICS_REGISTRY) private readonly metrics: client.Registry,
    @Inject(CLOCK) private readonly clock: Clock,
  ) {}

  @Public()
  @Get('healthz')
  @ApiPublicRoute({ tag: 'health', summary: 'Liveness (no token)', responses: { 200: { description: 'The process is alive', schema: { type: 'object', required: ['status'], properties: { status: { type: 'string', const: 'ok' } } } } } })
  healthz() {
    return { status: 'ok' };
  }

  @Public()
  @Get('readyz')
  @ApiPublicRoute({
    tag: 'health',
    summary: 'Readiness of the gateway and of each service behind it (no token)',
    description: 'The gateway stays ready (`degraded`) while a backend is down: that backend\'s routes answer 503, and `services` says which.',
    responses: {
      200: { description: '`ready`, or `degraded` when some service is not ready', schema: readiness(['ready', 'degraded']) },
      503: { description: 'The gateway itself is not ready (`not-ready`)', schema: readiness(['not-ready']) },
    },
  })
  async readyz(@Res() res: Response) {
    const own = await this.health.run('api-gateway');
    const services = await this.servicesStatus();
    const allUp = Object.values(services).every((s) => (s as { ready?: boolean }).ready);
    res.status(own.ready ? 200 : 503).json({
      status: own.ready ? (allUp && !own.degraded ? 'ready' : 'degraded') : 'not-ready',
      ...(own.reason ? { reason: own.reason } : {}),
      checks: own.checks,
      services,
    });
  }

  /**
   * servicesStatus — each service's answer to `service.status.<service>`, cached for STATUS_CACHE_MS of the injected
   * clock so that probes and anonymous callers of this public route cannot turn into a stream of commands to every
   * service.
   */
  private async servicesStatus(): Promise<Record<string, unknown>> {
    if (this.cached && this.clock.now().getTime() - this.cached.at < STATUS_CACHE_MS) return this.cached.value;
    this.pending ??= (async () => {
      const services: Record<string, unknown> = {};
      await Promise.all(
        ServiceNames.filter((s): s is Exclude<ServiceName, 'api-gateway'> => s !== 'api-gateway').map(async (s) => {
          try {
            services[s] = await this.bus.send(serviceStatusPattern(s), {}, { actor: 'system:api-gateway', correlationId: 'readyz' }, { timeoutMs: 2000 });
          } catch (err) {
            services[s] = { ready: false, error: CodedError.from(err).toBody() };
          }
        }),
      );
      this.cached = { at: this.clock.now().getTime(), value: services };
      return services;
    })().finally(() => (this.pending = undefined));
    return this.pending;
  }

  @Public()
  @Get('metrics')
  @ApiPublicRoute({ tag: 'health', summary: 'Prometheus metrics (no token)', responses: { 200: { description: 'Prometheus text exposition format', schema: { type: 'string' }, contentType: 'text/plain' } } })
  async metricsText(@Res() res: Response) {
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.metrics());
  }
}
