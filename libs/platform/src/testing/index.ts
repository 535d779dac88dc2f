export * from './test-database.js';
export * from './event-collector.js';
export * from './test-app.js';
export * from './wait-for.js';
export * from './tcp-proxy.js';
export * from './api-caller.js';
export * from './metrics-lint.js';
export * from './otlp-receiver.js';
