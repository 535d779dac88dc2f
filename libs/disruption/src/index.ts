export * from './cron.js';
export * from './time-zone.js';
export * from './windows.js';
export * from './approval-mode.js';
export * from './approvals.js';
export * from './pause.js';
export * from './limits.js';
export * from './admit.js';
