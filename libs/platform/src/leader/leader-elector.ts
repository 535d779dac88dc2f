import pg from 'pg';
import type { Metrics } from '../health/metrics.js';
import type { JsonLogger } from '../logging/logger.js';
import { LEADER_TERMS, StaleWrites, TermFence, UNFENCED, type WriteFence } from './write-fence.js';

/**
 * LeaderElector — one leader per `name` across all replicas, through a Postgres session advisory lock held on a
 * dedicated connection (docs/leader-election.md). The lock dies with the connection, so a crashed leader is
 * replaced within `retryMs`; a leader that loses its connection stops acting at once. Before each action a loop
 * calls {@link stillLeader}, which verifies the lock on the server (fencing a leader whose connection silently died).
 * Each time it takes the lock it takes the lock's next term (`nodes.leader_terms`), before it tells anyone it leads:
 * {@link fence} is what that term's writes carry, so a deposed leader's writes still in flight are refused
 * (docs/leader-election.md#terms).
 */
/** How long a lock query may take before this replica counts its leadership as lost. */
export const LEADER_QUERY_TIMEOUT_MS = 5_000;

export class LeaderElector {
  private client?: pg.Client;
  private leader = false;
  private timer?: NodeJS.Timeout;
  private stopped = true;
  private readonly listeners: ((leader: boolean) => void)[] = [];
  private current: WriteFence = UNFENCED;
  private lastError?: string;
  private readonly stale: StaleWrites;

  constructor(
    private readonly url: string,
    readonly name: string,
    private readonly logger?: JsonLogger,
    private readonly retryMs = 2000,
    o: { service?: string; metrics?: Metrics } = {},
  ) {
    this.stale = new StaleWrites(o.service ?? name, o.metrics, logger);
  }

  /**
   * fence — the write fence of this process's current term (taken with the lock); a term that has passed stays
   * the fence's, so whatever is still written under it is refused once another process took the lock.
   */
  fence(): WriteFence {
    return this.current;
  }

  get isLeader(): boolean {
    return this.leader;
  }

  onChange(fn: (leader: boolean) => void): void {
    this.listeners.push(fn);
  }

  start(): void {
    this.stopped = false;
    void this.attempt();
  }

  private set(leader: boolean): void {
    if (leader === this.leader) return;
    this.leader = leader;
    this.logger?.info(leader ? 'became leader' : 'lost leadership', { lock: this.name });
    for (const l of this.listeners) l(leader);
  }

  private async attempt(): Promise<void> {
    if (this.stopped) return;
    try {
      if (!this.client) {
        // Keep-alive and timeouts: a half-open connection must end leadership in seconds, not when TCP gives up.
        const c = new pg.Client({
          connectionString: this.url,
          application_name: `nodes-manager/leader/${this.name}`,
          keepAlive: true,
          keepAliveInitialDelayMillis: 5_000,
          connectionTimeoutMillis: LEADER_QUERY_TIMEOUT_MS,
          query_timeout: LEADER_QUERY_TIMEOUT_MS,
        });
        c.on('error', () => this.dropIfCurrent(c));
        c.on('end', () => this.dropIfCurrent(c));
        await c.connect();
        // stop() may have run while connecting: a stopped elector must not keep a session (nor take the lock).
        if (this.stopped) {
          await c.end().catch(() => undefined);
          return;
        }
        this.client = c;
      }
      if (!this.leader) {
        const client = this.client;
        const [row] = (await client.query('SELECT pg_try_advisory_lock(hashtext($1)) AS got', [this.lockName()])).rows;
        if (this.stopped || this.client !== client) {
          await client.end().catch(() => undefined);
          return;
        }
        if (row.got) {
          // The lock's next term, on the lock's own session: a process leads only with a term of its own.
          const [t] = (
            await client.query(
              `INSERT INTO ${LEADER_TERMS} (name, term, since) VALUES ($1, 1, now())
                 ON CONFLICT (name) DO UPDATE SET term = ${LEADER_TERMS}.term + 1, since = now() RETURNING term`,
              [this.name],
            )
          ).rows;
          this.current = new TermFence(this.name, Number(t.term), this.stale);
          this.set(true);
        }
      } else if (!(await this.stillLeader())) this.drop();
      this.lastError = undefined;
    } catch (err) {
      // Said once per kind of failure, not every retry (a database that is down fails every attempt the same way).
      const message = (err as Error).message;
      if (message !== this.lastError) this.logger?.warn('leader election attempt failed; tried again', { lock: this.name, err: message });
      this.lastError = message;
      this.drop();
    }
    if (!this.stopped) this.timer = setTimeout(() => void this.attempt(), this.retryMs);
  }

  private lockName(): string {
    return `nodes-manager.leader.${this.name}`;
  }

  /** stillLeader — true only if this process holds the lock according to the server, right now. */
  async stillLeader(): Promise<boolean> {
    if (!this.leader || !this.client) return false;
    try {
      const { rows } = await this.client.query(
        `SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
           AND objsubid = 1 AND objid::bigint = (hashtext($1)::bigint & 4294967295)`,
        [this.lockName()],
      );
      return rows.length > 0;
    } catch {
      this.drop();
      return false;
    }
  }

  private dropIfCurrent(c: pg.Client): void {
    if (this.client === c) this.drop();
  }

  private drop(): void {
    const c = this.client;
    this.client = undefined;
    this.set(false);
    c?.end().catch(() => undefined);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const c = this.client;
    this.client = undefined;
    this.set(false);
    await c?.end().catch(() => undefined);
  }
}
