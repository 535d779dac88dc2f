export * from './catalog/instance-types.js';
export * from './events.js';
export * from './errors.js';
export * from './commands.js';
export * from './uncordon.js';
export * from './api.js';
export * from './event-schemas.js';
export * from './cursor.js';
