import type { Provider } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { CONTROLLERS, DATA_SOURCE, LEADER_FACTORY, type LeaderFactory } from '../platform.module.js';
import type { Controller } from './controller.js';
import type { Controllers } from './controllers.js';
import { Manager } from './manager.js';
import { activeRules, assertRetention, retentionController, type RetentionSpec } from './retention.js';

export const RETENTION = Symbol('RETENTION');

/**
 * Retention — a service's retention controller with its own leader lock (`<service>-retention`, so it needs nothing of
 * the service's other loops), started and stopped by the runtime's {@link Manager} in its one order: on application
 * bootstrap, and on shutdown before the platform releases the lock and closes the pool (docs/retention.md).
 */
export class Retention extends Manager {
  constructor(
    readonly controller: Controller,
    leader: { start(): void; stop(): Promise<void> },
  ) {
    super({ controllers: [controller], leader });
  }
}

/**
 * retentionProvider — the `RETENTION` provider of a service: its spec's rules with the validated config's lengths. A
 * retention shorter than a window that reads its table refuses the start here (a ConfigError, exit 78), whichever way
 * the config was loaded (split mode's main loads the bare spec).
 */
export function retentionProvider(spec: RetentionSpec, config: Record<string, unknown>): Provider {
  assertRetention(spec, config);
  return {
    provide: RETENTION,
    inject: [CONTROLLERS, LEADER_FACTORY, DATA_SOURCE],
    useFactory: (controllers: Controllers, leaders: LeaderFactory, ds: DataSource) => {
      const leader = leaders(`${spec.service}-retention`);
      const controller = retentionController(controllers, {
        leader,
        db: ds,
        rules: activeRules(spec, config),
        intervalMs: (config['RETENTION_INTERVAL_MINUTES'] as number) * 60_000,
        batchSize: config['RETENTION_BATCH_SIZE'] as number,
      });
      return new Retention(controller, leader);
    },
  };
}
