// The production entry points: one per service, and the all-in-one process (deploy/overlays/all-in-one). The build
// bundles each (scripts/bundle-entries.mjs) and the image ships what they load (scripts/image/runtime-files.mjs).
export const ENTRIES = [
  ...['api-gateway', 'node-sync', 'uncordon', 'scheduler-scoring', 'karpenter-gateway', 'spot-advisor'].map((s) => `dist/services/${s}/src/main.js`),
  'dist/all-in-one/src/main.js',
];
