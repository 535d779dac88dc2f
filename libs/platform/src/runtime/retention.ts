import type { DataSource } from 'typeorm';
import type { ServiceName } from '@nodes-manager/contracts';
import { fenced, STALE_WRITE } from '../leader/write-fence.js';
import { ConfigError, env, type EnvShape } from '../config/config.js';
import type { LeaderGate, Controller } from './controller.js';
import type { Controllers } from './controllers.js';

/**
 * RetentionRule — how long one table keeps its rows (docs/retention.md): a row whose `column` is older than the
 * variable's value is deleted, unless `keep` (SQL over the row, aliased `t`) says something still needs it.
 */
export interface RetentionRule {
  /** The table, in schema `nodes`. */
  readonly table: string;
  /** The time column a row's age is measured on; an index leads with it, so the oldest rows are found cheaply. */
  readonly column: string;
  /** The variable that says how long rows are kept: its name ends in `_DAYS` or `_HOURS`, its unit. */
  readonly variable: string;
  /** Its default, in the variable's unit. */
  readonly dflt: number;
  /** What the table holds, in a few words (the docs' table). */
  readonly holds: string;
  /** Rows never deleted whatever their age: SQL over the row, aliased `t`, with the reason in words. */
  readonly keep?: { readonly sql: string; readonly why: string };
  /** Windows (variables, `_DAYS` or `_HOURS`, of the same config) that read this table: the rule must keep at least as long. */
  readonly outlives?: readonly string[];
}

/** BoundedTable — a table with a time column that does not grow with time (one row per key), and why. */
export interface BoundedTable {
  readonly table: string;
  readonly why: string;
}

/** RetentionSpec — a service's tables: each one that grows has a rule, each one that does not says why. */
export interface RetentionSpec {
  readonly service: ServiceName;
  readonly rules: readonly RetentionRule[];
  readonly bounded: readonly BoundedTable[];
}

/** The open statuses of an approval (libs/platform/src/approvals): a request still waiting, approved, or running. */
export const OPEN_APPROVAL = `t.status IN ('pending', 'approved', 'executing')`;

/** approvalsRule — the rule of an owner's approvals table: decided or expired requests go after RETENTION_APPROVALS_DAYS. */
export const approvalsRule = (table: string): RetentionRule => ({
  table,
  column: 'requested_at',
  variable: 'RETENTION_APPROVALS_DAYS',
  dflt: 90,
  holds: 'approval requests and their decisions',
  keep: { sql: OPEN_APPROVAL, why: 'an open request (pending, approved, executing)' },
});

/** How often the retention controller lists its tables, by default (RETENTION_INTERVAL_MINUTES). */
export const DEFAULT_RETENTION_INTERVAL_MINUTES = 60;
/** The most rows one reconcile deletes (RETENTION_BATCH_SIZE): one short statement, then the next table's turn. */
export const DEFAULT_RETENTION_BATCH_SIZE = 1_000;
/** The pause between two batches of one table: other writers' turn on its rows and the WAL's. */
export const RETENTION_BATCH_PAUSE_MS = 1_000;

const MS_PER = { DAYS: 86_400_000, HOURS: 3_600_000 } as const;

/** msOf — a `_DAYS` or `_HOURS` variable's value in milliseconds. */
export function msOf(variable: string, value: number): number {
  const unit = /_(DAYS|HOURS)$/.exec(variable)?.[1] as keyof typeof MS_PER | undefined;
  if (!unit) throw new Error(`${variable}: a retention or window variable ends in _DAYS or _HOURS`);
  return value * MS_PER[unit];
}

/**
 * retentionShape — the variables of a service's retention: one per rule (shared by rules that name the same one),
 * RETENTION_INTERVAL_MINUTES and RETENTION_BATCH_SIZE. Spread into the service's config shape.
 */
export function retentionShape(spec: RetentionSpec): EnvShape {
  const shape: EnvShape = {
    RETENTION_INTERVAL_MINUTES: env.number({ dflt: DEFAULT_RETENTION_INTERVAL_MINUTES, min: 1, max: 1440 }),
    RETENTION_BATCH_SIZE: env.number({ dflt: DEFAULT_RETENTION_BATCH_SIZE, min: 10, max: 100_000, int: true }),
  };
  for (const r of spec.rules) {
    msOf(r.variable, 1);
    shape[r.variable] = env.number({ dflt: r.dflt, min: 1, max: r.variable.endsWith('_DAYS') ? 3650 : 87_600 });
  }
  return shape;
}

/**
 * assertRetention — refuses (a ConfigError, exit 78) a retention shorter than a window that reads the table: the
 * problem names the retention variable and every window it must outlive. Run by the service's config loader.
 */
export function assertRetention<C extends Record<string, unknown>>(spec: RetentionSpec, config: C): C {
  const problems: { variable: string; problem: string }[] = [];
  const seen = new Set<string>();
  for (const r of spec.rules) {
    if (!r.outlives?.length || seen.has(r.variable)) continue;
    seen.add(r.variable);
    const kept = msOf(r.variable, config[r.variable] as number);
    const windows = r.outlives.map((w) => ({ w, ms: msOf(w, config[w] as number) }));
    if (windows.some((x) => kept < x.ms)) {
      const words = windows.map((x) => `${x.w} (${config[x.w]} = ${days(x.ms)})`).join(' and ');
      problems.push({
        variable: r.variable,
        problem: `keeps ${r.table} ${days(kept)}, shorter than what reads it: must be at least ${words}`,
      });
    }
  }
  if (problems.length) throw new ConfigError(spec.service, problems);
  return config;
}

const days = (ms: number): string => {
  const d = ms / MS_PER.DAYS;
  return d >= 1 ? `${Number(d.toFixed(1))} days` : `${Number((ms / MS_PER.HOURS).toFixed(1))} h`;
};

/** ActiveRule — a rule with its configured length. */
export interface ActiveRule extends RetentionRule {
  readonly keepMs: number;
}

/** activeRules — the spec's rules with the lengths of the validated config. */
export function activeRules(spec: RetentionSpec, config: Record<string, unknown>): ActiveRule[] {
  return spec.rules.map((r) => ({ ...r, keepMs: msOf(r.variable, config[r.variable] as number) }));
}

/** pruneSql — one bounded batch of a rule: the oldest-first rows past `$1`, at most `$2`, none another writer holds. */
export function pruneSql(r: RetentionRule): string {
  const keep = r.keep ? ` AND NOT (${r.keep.sql})` : '';
  return (
    `WITH gone AS (DELETE FROM nodes.${r.table} WHERE ctid = ANY(ARRAY(` +
    `SELECT t.ctid FROM nodes.${r.table} t WHERE t.${r.column} < $1${keep} ORDER BY t.${r.column} LIMIT $2 FOR UPDATE SKIP LOCKED` +
    `)) RETURNING 1) SELECT count(*)::int AS n FROM gone`
  );
}

export interface RetentionOptions {
  readonly leader: LeaderGate;
  readonly db: DataSource;
  readonly rules: readonly ActiveRule[];
  readonly intervalMs: number;
  readonly batchSize: number;
}

/**
 * retentionController — the service's `retention` controller (docs/retention.md): one key per table, listed on becoming
 * leader and every `intervalMs`; a reconcile deletes one batch of the table's rows past its retention (never one its
 * rule keeps) and, when the batch was full, comes back after {@link RETENTION_BATCH_PAUSE_MS} for the next. The delete is
 * fenced by the leader's term, as every write of a reconcile. Rows deleted count in
 * `nodes_manager_retention_deleted_rows_total{table}`.
 */
export function retentionController(controllers: Controllers, o: RetentionOptions): Controller {
  const byTable = new Map(o.rules.map((r) => [r.table, { rule: r, sql: pruneSql(r) }]));
  const deleted = controllers.metrics.counter('nodes_manager_retention_deleted_rows_total', 'Rows deleted past their retention, by table (docs/retention.md)', ['table']);
  for (const r of o.rules) deleted.inc({ service: controllers.service, table: r.table }, 0);
  return controllers.controller({
    name: 'retention',
    leader: o.leader,
    listKeys: () => byTable.keys(),
    resyncMs: o.intervalMs,
    reconcile: async (table, ctx) => {
      const entry = byTable.get(table);
      if (!entry || ctx.signal.aborted) return;
      const cutoff = new Date(controllers.clock.now().getTime() - entry.rule.keepMs);
      const n = await fenced(o.db, table, async (tx) => {
        const [row] = (await tx.query(entry.sql, [cutoff, o.batchSize])) as { n: number }[];
        return row?.n ?? 0;
      }, ctx.fence);
      if (n === STALE_WRITE) return;
      if (n > 0) {
        deleted.inc({ service: controllers.service, table }, n);
        controllers.logger.info('deleted rows past their retention', { table, rows: n, before: cutoff.toISOString(), variable: entry.rule.variable });
      }
      return n >= o.batchSize ? { requeueAfterMs: RETENTION_BATCH_PAUSE_MS } : undefined;
    },
  });
}
