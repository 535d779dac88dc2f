import client from 'prom-client';

/**
 * Metrics — one prom-client registry per process; metric names are `nodes_manager_*` with a `service` label so
 * the all-in-one process and split services expose the same series. `gauge`/`counter`/`histogram` return the
 * existing metric when a name is registered twice (several service modules in one process).
 */
export class Metrics {
  readonly registry = new client.Registry();
  constructor() {
    client.collectDefaultMetrics({ register: this.registry, prefix: 'nodes_manager_process_' });
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
