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
  histogram(name: string, help: string, labelNames: string[] = [], buckets?: number[]): client.Histogram<string> {
    return (this.registry.getSingleMetric(name) as client.Histogram<string>) ??
      new client.Histogram({ name, help, labelNames: ['service', ...labelNames], registers: [this.registry], ...(buckets ? { buckets } : {}) });
  }
}
