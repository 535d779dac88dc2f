// Jest runs the TypeScript sources as ES modules through @swc/jest (see docs/stack.md), with the built-in globals
// bound per module (scripts/jest/swc-transformer.cjs).
import { kubeClientBundle, typeormBundle } from './scripts/jest/vendor-bundles.mjs';
const swc = [
  '<rootDir>/scripts/jest/swc-transformer.cjs',
  {
    sourceMaps: 'inline',
    module: { type: 'es6' },
    jsc: {
      target: 'es2022',
      parser: { syntax: 'typescript', decorators: true },
      transform: { legacyDecorator: true, decoratorMetadata: true, useDefineForClassFields: false },
      keepClassNames: true,
    },
  },
];

// The projects that use RabbitMQ: one vhost per Jest worker, so test files run side by side (scripts/jest/rabbitmq-vhosts.mjs).
// Their timeouts per test (90 s, 180 s, 300 s) are set by scripts/jest/timeouts.mjs.
const broker = {
  globalSetup: '<rootDir>/scripts/jest/vhosts-setup.mjs',
  globalTeardown: '<rootDir>/scripts/jest/vhosts-teardown.mjs',
  setupFilesAfterEnv: ['<rootDir>/scripts/jest/async-context.mjs', '<rootDir>/scripts/jest/timeouts.mjs'],
};

const common = {
  extensionsToTreatAsEsm: ['.ts'],
  transform: { '^.+\\.ts$': swc },
  moduleNameMapper: {
    '^@kubernetes/client-node$': kubeClientBundle(),
    '^typeorm$': typeormBundle(),
    '^@nodes-manager/platform/testing$': '<rootDir>/libs/platform/src/testing/index.ts',
    '^@nodes-manager/kube/testing$': '<rootDir>/libs/kube/src/testing/index.ts',
    '^@nodes-manager/(contracts|disruption|kube|platform|scoring|sim|steering)$': '<rootDir>/libs/$1/src/index.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
  },
  testEnvironment: 'node',
  // The AsyncLocalStorage instances a file ran are disabled after it (scripts/jest/async-context.mjs).
  setupFilesAfterEnv: ['<rootDir>/scripts/jest/async-context.mjs'],
  rootDir: '.',
  modulePathIgnorePatterns: ['<rootDir>/dist/'],
};

export default {
  // The longest kinds of test file first, so no worker idles at the end (scripts/jest/sequencer.cjs).
  testSequencer: '<rootDir>/scripts/jest/sequencer.cjs',
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/{libs,services}/**/*.spec.ts', '<rootDir>/test/architecture/*.spec.ts'] },
    {
      ...common,
      displayName: 'integration',
      // CommonJS dependencies that require ES-module-only packages: scripts/jest/resolver.cjs.
      resolver: '<rootDir>/scripts/jest/resolver.cjs',
      setupFiles: ['<rootDir>/scripts/jest/esm-modules.mjs', '<rootDir>/scripts/jest/worker-vhost.mjs'],
      ...broker,
      testMatch: ['<rootDir>/{libs,services,test}/**/*.int.ts'],
      slowTestThreshold: 30,
    },
    {
      ...common,
      displayName: 'e2e',
      resolver: '<rootDir>/scripts/jest/resolver.cjs',
      setupFiles: ['<rootDir>/scripts/jest/esm-modules.mjs', '<rootDir>/scripts/jest/worker-vhost.mjs'],
      ...broker,
      testMatch: ['<rootDir>/test/e2e/**/*.e2e.ts'],
      slowTestThreshold: 60,
    },
    {
      ...common,
      displayName: 'image',
      // The production image built by scripts/image/build-image.mjs; run by `npm run test:image` (scripts/test-image.mjs).
      resolver: '<rootDir>/scripts/jest/resolver.cjs',
      setupFiles: ['<rootDir>/scripts/jest/esm-modules.mjs'],
      testMatch: ['<rootDir>/test/image/**/*.image.ts'],
      slowTestThreshold: 120,
    },
    {
      ...common,
      displayName: 'fault',
      setupFiles: ['<rootDir>/scripts/jest/worker-vhost.mjs'],
      ...broker,
      testMatch: ['<rootDir>/test/fault/**/*.fault.ts'],
      slowTestThreshold: 120,
    },
  ],
};
