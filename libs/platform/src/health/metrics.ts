import client from 'prom-client';

/** The process prefix of prom-client's default metrics: `nodes_manager_process_cpu_seconds_total`, `nodes_manager_nodejs_…`. */
export const METRICS_PREFIX = 'nodes_manager_';

/**
 * Metrics — one prom-client registry per process; metric names are `nodes_manager_*` with a `service` label (the
 * service's name, `node-sync`, never a class name) so the all-in-one process and split services expose the same
 * series. `gauge`/`counter`/`histogram` return the existing metric when a name is registered twice (several service
 * modules in one process). The exposition passes `promtool check metrics` (docs/deploy.md, "Metrics").
 */
export class Metrics {
  readonly registry = new client.Registry();
  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: METRICS_PREFIX });
    // prom-client's `nodejs_active_{handles,requests,resources}_total` are gauges named like counters; the same
    // counts stay available, by type, in the `nodejs_active_*` gauges without the suffix.
    for (const m of this.registry.getMetricsAsArray()) {
      if (m.name.endsWith('_total') && !(m instanceof client.Counter)) this.registry.removeSingleMetric(m.name);
    }
  }
  counter(name: string, help: string, labelNames: string[] = []): client.Counter<string> {
    return (this.registry.getSingleMetric(name) as client.Counter<string>) ??
      new client.Counter({ name, help, labelNames: ['service', ...labelNames], registers: [this.registry] });
  }
  gauge(name: string, help: string, labelNames: string[] = [], collect?: (this: client.Gauge<string>) => void | Promise<void>): client.Gauge<string> {
    return (this.registry.getSingleMetric(name) as client.Gauge<string>) ??
      new client.Gauge({ name, help, labelNames: ['service', ...labelNames], registers: [this.registry], ...(collect ? { collect } : {}) });
  }
  private readonly collectors = new Map<string, (() => Promise<void> | void)[]>();

  /**
   * collectedGauge — a gauge refreshed at scrape time by every collector registered under its name (one per service
   * module in the process), e.g. each service's outbox backlog.
   */
  collectedGauge(name: string, help: string, labelNames: string[], collector: (g: client.Gauge<string>) => Promise<void> | void): client.Gauge<string> {
    const list = this.collectors.get(name) ?? [];
    this.collectors.set(name, list);
    const g = this.gauge(name, help, labelNames, async () => {
      for (const c of list) await c();
    });
    list.push(() => collector(g));
    return g;
  }

  /** apiError — counts a failed call to the Kubernetes or EC2 API, by operation and status code. */
  apiError(api: 'kube' | 'ec2', service: string, operation: string, code: string | number | undefined): void {
    this.counter(`nodes_manager_${api}_api_errors_total`, `Failed ${api === 'kube' ? 'Kubernetes' : 'EC2'} API calls`, ['operation', 'code']).inc({
      service,
      operation,
      code: String(code ?? 'network'),
    });
  }

  histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[]): client.Histogram<string> {
    return (this.registry.getSingleMetric(name) as client.Histogram<string>) ??
      new client.Histogram({ name, help, labelNames: ['service', ...labelNames], registers: [this.registry], ...(buckets ? { buckets } : {}) });
  }
}
