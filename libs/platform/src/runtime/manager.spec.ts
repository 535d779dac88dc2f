import { describe, expect, it } from '@jest/globals';
import { Manager, type Runnable } from './manager.js';

/** part — a runnable that records its starts and stops in `log`; `slowStop` ends its stop a turn later. */
const part = (name: string, log: string[], o: { slowStop?: boolean } = {}): Runnable => ({
  start: () => void log.push(`start ${name}`),
  stop: async () => {
    if (o.slowStop) await new Promise((r) => setImmediate(r));
    log.push(`stop ${name}`);
  },
});

describe('Manager: one order for every service', () => {
  it('starts the controllers, then the election, then the caches; stops the caches, then the controllers, then the election', async () => {
    const log: string[] = [];
    const m = new Manager({ controllers: [part('drain', log), part('fences', log, { slowStop: true })], leader: part('leader', log), caches: [part('nodes', log, { slowStop: true })] });
    await m.onApplicationBootstrap();
    expect(log).toEqual(['start drain', 'start fences', 'start leader', 'start nodes']);
    log.length = 0;
    await m.onApplicationShutdown();
    // The election is let go only once every controller has stopped (a reconcile in flight ends first).
    expect(log).toEqual(['stop nodes', 'stop drain', 'stop fences', 'stop leader']);
  });

  it('runs a service with controllers only (no election, no cache)', async () => {
    const log: string[] = [];
    const m = new Manager({ controllers: [part('approvals', log)] });
    await m.start();
    await m.stop();
    expect(log).toEqual(['start approvals', 'stop approvals']);
  });
});
