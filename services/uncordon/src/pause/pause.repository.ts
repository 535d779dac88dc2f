import type { DataSource, EntityManager } from 'typeorm';
import { EventTypes, type ActivePause, type DisruptionsPausedData, type DisruptionsResumedData, type PauseChange, type PauseScope, type PauseSource, type PauseView } from '@nodes-manager/contracts';
import { pauseInForce } from '@nodes-manager/disruption';
import { currentFence, makeEvent, withAdvisoryLock, type Outbox } from '@nodes-manager/platform';
import type { PauseWrite } from './domain/decide-pause.js';

export type { PauseWrite } from './domain/decide-pause.js';

/** How many changes a view lists, newest first (docs/pause.md#the-api). */
export const PAUSE_CHANGES_LISTED = 20;

/** The actor of a pause applied from the configuration, and of an expiry. */
export const CONFIG_ACTOR = 'config:DISRUPTION_PAUSE';
export const EXPIRY_ACTOR = 'system:uncordon';

interface PauseRow {
  action: 'pause' | 'resume';
  reason: string;
  scope: PauseScope | null;
  until: Date | null;
  actor: string;
  at: Date;
  source: PauseSource;
}

const toRow = (r: Record<string, unknown>): PauseRow => ({
  action: r.action as PauseRow['action'],
  reason: r.reason as string,
  scope: (r.scope as PauseScope | null) ?? null,
  until: (r.until as Date | null) ?? null,
  actor: r.actor as string,
  at: r.at as Date,
  source: r.source as PauseSource,
});

const toChange = (r: PauseRow): PauseChange => ({
  action: r.action,
  reason: r.reason,
  scope: r.scope,
  until: r.until?.toISOString() ?? null,
  actor: r.actor,
  at: r.at.toISOString(),
  source: r.source,
});

/** lastPause — the pause the latest row starts (whether or not its `until` has passed), or null after a resume. */
const lastPause = (latest: PauseRow | undefined): ActivePause | null =>
  latest && latest.action === 'pause'
    ? { reason: latest.reason, scope: latest.scope ?? 'disruptive', pausedBy: latest.actor, pausedAt: latest.at.toISOString(), until: latest.until?.toISOString() ?? null, source: latest.source }
    : null;

/**
 * PauseRepository — `nodes.disruption_pause`, one row per change of the fleet-wide pause (docs/pause.md). Every change
 * is written under one advisory lock (replicas change it one at a time, each on the state the last one left) with its
 * `disruptions.paused` / `disruptions.resumed` event in the same transaction.
 */
export class PauseRepository {
  constructor(
    private readonly ds: DataSource,
    private readonly outbox: Outbox,
  ) {}

  /** view — the pause in force at `now` (an `until` passed counts as ended, recorded or not) and the latest changes. */
  async view(now: Date, runner: Pick<EntityManager, 'query'> = this.ds): Promise<PauseView> {
    const rows = ((await runner.query(`SELECT * FROM nodes.disruption_pause ORDER BY id DESC LIMIT $1`, [PAUSE_CHANGES_LISTED])) as Record<string, unknown>[]).map(toRow);
    const pause = pauseInForce(lastPause(rows[0]), now);
    return { paused: pause !== null, pause, changes: rows.map(toChange), readAt: now.toISOString() };
  }

  /**
   * change — under the lock, `decide` looks at the latest row (and the last one applied from the configuration) and
   * answers the change to record, if any; it is recorded with its event in the same transaction. Answers the view.
   */
  async change(now: Date, decide: (latest: ActivePause | null, lastConfigured: boolean | null) => PauseWrite | null): Promise<{ view: PauseView; changed: boolean }> {
    let changed = false;
    const view = await withAdvisoryLock(this.ds, 'nodes.disruption_pause', async (tx) => {
      const latestRows = (await tx.query(`SELECT * FROM nodes.disruption_pause ORDER BY id DESC LIMIT 1`)) as Record<string, unknown>[];
      const configRows = (await tx.query(`SELECT action FROM nodes.disruption_pause WHERE source = 'configuration' ORDER BY id DESC LIMIT 1`)) as { action: string }[];
      const latest = lastPause(latestRows[0] ? toRow(latestRows[0]) : undefined);
      const lastConfigured = configRows[0] ? configRows[0].action === 'pause' : null;
      const write = decide(latest, lastConfigured);
      // The expiry controller's writes are fenced by the leader's term (a command's are not: UNFENCED).
      if (write && (await currentFence().admit(tx, 'disruption_pause'))) {
        changed = true;
        await this.record(tx, write, latest, now);
      }
      return this.view(now, tx);
    });
    if (changed) this.outbox.added();
    return { view, changed };
  }

  private async record(tx: EntityManager, w: PauseWrite, ended: ActivePause | null, now: Date): Promise<void> {
    if (w.action === 'pause') {
      await tx.query(`INSERT INTO nodes.disruption_pause (action, reason, scope, until, actor, at, source) VALUES ('pause', $1, $2, $3, $4, $5, $6)`, [w.reason, w.scope, w.until, w.actor, now, w.source]);
      const data: DisruptionsPausedData = { reason: w.reason, scope: w.scope, pausedBy: w.actor, pausedAt: now.toISOString(), until: w.until?.toISOString() ?? null, source: w.source };
      await this.outbox.add(tx, [makeEvent('uncordon', EventTypes.disruptionsPaused, data, now, { actor: w.actor })]);
      return;
    }
    const words = w.why === 'operator' ? `resumed by ${w.actor}` : w.why === 'expired' ? 'its end (until) passed' : 'DISRUPTION_PAUSE is false';
    await tx.query(`INSERT INTO nodes.disruption_pause (action, reason, scope, until, actor, at, source) VALUES ('resume', $1, NULL, NULL, $2, $3, $4)`, [words, w.actor, now, w.source]);
    // A resume recorded only to remember the configured value (nothing was paused) publishes nothing.
    if (!ended) return;
    const data: DisruptionsResumedData = { resumedBy: w.actor, resumedAt: now.toISOString(), why: w.why, pause: ended };
    await this.outbox.add(tx, [makeEvent('uncordon', EventTypes.disruptionsResumed, data, now, { actor: w.actor })]);
  }
}
