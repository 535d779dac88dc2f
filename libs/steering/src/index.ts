export * from './pool-health-config.js';
export * from './pool-health.js';
export * from './requirements.js';
export * from './nodepool-edit.js';
export * from './rails.js';
export * from './fleet.js';
export { wilsonInterval, quantile } from './stats.js';
export * from './pool-rate.js';
export * from './replace-avoided.js';
