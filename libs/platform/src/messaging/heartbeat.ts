import { heartbeatType, type ClusterIdentity, type ServiceName } from '@nodes-manager/contracts';
import { SystemClock, type Clock, type TimerHandle } from '../clock/clock.js';
import type { JsonLogger } from '../logging/logger.js';
import type { EventPublisher } from './event-publisher.js';
import { makeEvent } from './outbox.js';

/** The heartbeat says the process is alive, so it beats on wall time: a test stepping a FakeClock through days does not
 * publish a beat per interval it steps. The events' times are the service's Clock's. */
const WALL = new SystemClock();

/**
 * startHeartbeat — publishes `heartbeat.<service>` now and every `intervalMs` (wall time, unref'd timers); a beat the
 * broker does not take is logged at debug and the next one tries again. `cancel()` stops it.
 */
export function startHeartbeat(o: { service: ServiceName; cluster?: ClusterIdentity; mode: string; clock: Clock; publisher: Pick<EventPublisher, 'publish'>; intervalMs: number; logger: JsonLogger }): TimerHandle {
  let timer: TimerHandle | undefined;
  let stopped = false;
  const beat = (): Promise<unknown> => {
    if (stopped) return Promise.resolve();
    timer = WALL.setTimer(o.intervalMs, beat);
    return o.publisher
      .publish([{ ...makeEvent(o.service, heartbeatType(o.service), { service: o.service, mode: o.mode }, o.clock.now()), ...(o.cluster ? { clusterid: o.cluster.id, clustername: o.cluster.name } : {}) }])
      .catch((err) => o.logger.debug('heartbeat not published', { err: (err as Error).message }));
  };
  void beat();
  return {
    cancel: () => {
      stopped = true;
      timer?.cancel();
    },
  };
}
