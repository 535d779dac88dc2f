export * from './catalog/instance-types.js';
