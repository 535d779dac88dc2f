export * from './pool-health-config.js';
export * from './pool-health.js';
export { wilsonInterval, quantile } from './stats.js';
