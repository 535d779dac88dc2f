export * from './catalog/instance-types.js';
export * from './uncordon.js';
