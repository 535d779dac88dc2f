export * from './types.js';
export * from './classify.js';
export * from './filters.js';
export * from './weights.js';
export * from './prices.js';
export * from './scorers.js';
export * from './score-node.js';
export * from './scoring-index.js';
