import type { OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';

/** Runnable — a controller, a leader election or a cache: something the manager starts and stops. */
export interface Runnable {
  start(): void | Promise<void>;
  stop(): Promise<void>;
}

/** What one service runs: its controllers, its leader election (absent: none) and the caches its reconciles read. */
export interface ManagedParts {
  readonly controllers: readonly Runnable[];
  readonly leader?: Runnable;
  readonly caches?: readonly Runnable[];
}

/**
 * Manager — starts and stops a service's controllers, its leader election and its caches, in one order for every
 * service (docs/runtime.md#the-manager), as controller-runtime's manager does:
 *
 * - start: the controllers first (they follow the election: nothing runs yet), then the election, then the caches
 *   (each controller's `ready` waits for them, so no reconcile reads a cache that has not synced);
 * - stop: the caches first (no more changes come in), then every controller (no new key; reconciles in flight end,
 *   bounded), then the election, so that a standby takes over at once.
 *
 * A service module provides one as a class of its own that names its parts (`extends Manager`), or builds one.
 */
export class Manager implements OnApplicationBootstrap, OnApplicationShutdown {
  constructor(private readonly parts: ManagedParts) {}

  async start(): Promise<void> {
    for (const c of this.parts.controllers) await c.start();
    await this.parts.leader?.start();
    await Promise.all((this.parts.caches ?? []).map((c) => c.start()));
  }

  async stop(): Promise<void> {
    await Promise.all((this.parts.caches ?? []).map((c) => c.stop()));
    await Promise.all(this.parts.controllers.map((c) => c.stop()));
    await this.parts.leader?.stop();
  }

  onApplicationBootstrap(): Promise<void> {
    return this.start();
  }

  onApplicationShutdown(): Promise<void> {
    return this.stop();
  }
}
