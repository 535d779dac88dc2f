import { Controller, Get, HttpCode, Inject, Res } from '@nestjs/common';
import type { Response } from 'express';
import client from 'prom-client';
import { Public } from '../auth/auth.js';

export interface CheckResult {
  ok: boolean;
  detail?: string;
  /** A degraded check does not make the service unready (e.g. spot-advisor without AWS configuration). */
  degraded?: boolean;
}
export type HealthCheck = () => Promise<CheckResult> | CheckResult;

/** HealthRegistry — the process's readiness checks, named `<service>.<what>` (database, broker, kube-cache…). */
export class HealthRegistry {
  private readonly checks = new Map<string, HealthCheck>();
  register(name: string, check: HealthCheck): void {
    this.checks.set(name, check);
  }
  /**
   * run — every check (or those under `prefix`); `reason` names the dependencies behind a degraded or unready
   * answer by the last part of their check name, e.g. `degraded: broker`.
   */
  async run(prefix?: string): Promise<{ ready: boolean; degraded: boolean; reason?: string; checks: Record<string, CheckResult> }> {
    const checks: Record<string, CheckResult> = {};
    await Promise.all(
      [...this.checks].filter(([n]) => !prefix || n.startsWith(prefix + '.')).map(async ([name, check]) => {
        try {
          checks[name] = await Promise.race([
            Promise.resolve(check()),
            new Promise<CheckResult>((r) => setTimeout(() => r({ ok: false, detail: 'check timed out' }), 3000).unref()),
          ]);
        } catch (err) {
          checks[name] = { ok: false, detail: (err as Error).message };
        }
      }),
    );
    const values = Object.values(checks);
    const ready = values.every((c) => c.ok || c.degraded);
    const degraded = values.some((c) => !c.ok && c.degraded);
    const failing = Object.entries(checks)
      .filter(([, c]) => !c.ok && (ready ? c.degraded : !c.degraded))
      .map(([n]) => n.slice(n.lastIndexOf('.') + 1));
    const reason = failing.length ? `${ready ? 'degraded' : 'not ready'}: ${[...new Set(failing)].sort().join(', ')}` : undefined;
    return { ready, degraded, ...(reason ? { reason } : {}), checks };
  }
}
export const HEALTH_REGISTRY = Symbol('HEALTH_REGISTRY');
export const METRICS_REGISTRY = Symbol('METRICS_REGISTRY');

/** HealthController — `/healthz` (alive), `/readyz` (every check), `/metrics` (Prometheus). No auth. */
@Controller()
export class HealthController {
  constructor(
    @Inject(HEALTH_REGISTRY) private readonly health: HealthRegistry,
    @Inject(METRICS_REGISTRY) private readonly metrics: client.Registry,
  ) {}

  @Public()
  @Get('healthz')
  @HttpCode(200)
  healthz() {
    return { status: 'ok' };
  }

  @Public()
  @Get('readyz')
  async readyz(@Res() res: Response) {
    const r = await this.health.run();
    res.status(r.ready ? 200 : 503).json({
      status: r.ready ? (r.degraded ? 'degraded' : 'ready') : 'not-ready',
      ...(r.reason ? { reason: r.reason } : {}),
      checks: r.checks,
    });
  }

  @Public()
  @Get('metrics')
  async metricsText(@Res() res: Response) {
    res.setHeader('Content-Type', this.metrics.contentType);
    res.send(await this.metrics.metrics());
  }
}
