import type { DataSource } from 'typeorm';
import type { CloudEvent, NodePressure, PressureMode, PsiResource } from '@nodes-manager/contracts';
import { fenced, STALE_WRITE, type Outbox } from '@nodes-manager/platform';
import type { ScalingEventInput, UncordonRepository } from '../auto-uncordon/uncordon.repository.js';

/** PressureRow — `node_pressure`: the last PSI reading of one opted-in node. */
export interface PressureRow {
  node: string;
  mode: PressureMode;
  status: NodePressure['status'];
  cpu: PsiResource | null;
  memory: PsiResource | null;
  io: PsiResource | null;
  highSamples: number;
  sampledAt: Date;
  lastRelief: { pod: string; at: string; outcome: string } | null;
}

const toRow = (r: Record<string, unknown>): PressureRow => ({
  node: r.node_name as string,
  mode: r.mode as PressureMode,
  status: r.status as NodePressure['status'],
  cpu: (r.cpu as PsiResource | null) ?? null,
  memory: (r.memory as PsiResource | null) ?? null,
  io: (r.io as PsiResource | null) ?? null,
  highSamples: Number(r.high_samples ?? 0),
  sampledAt: r.sampled_at as Date,
  lastRelief: (r.last_relief as PressureRow['lastRelief']) ?? null,
});

export const pressureView = (r: PressureRow): NodePressure => ({
  node: r.node,
  mode: r.mode,
  status: r.status,
  cpu: r.cpu,
  memory: r.memory,
  io: r.io,
  highSamples: r.highSamples,
  sampledAt: r.sampledAt.toISOString(),
  lastRelief: r.lastRelief,
});

/** PressureRepository — `node_pressure`, one row per node that opted in to pressure watching. */
export class PressureRepository {
  constructor(
    private readonly ds: DataSource,
    /** Where a relief's `scaling_events` row goes, in its own transaction. */
    private readonly events: UncordonRepository,
    private readonly outbox: Outbox,
  ) {}

  /** recordRelief — one relief attempt: its scaling event and its `node.pressure.relieved` event, in one transaction. */
  async recordRelief(row: ScalingEventInput, event: CloudEvent): Promise<void> {
    const done = await fenced(this.ds, 'scaling_events', async (tx) => {
      await this.events.addEvent(tx, row);
      await this.outbox.add(tx, [event]);
    });
    if (done !== STALE_WRITE) this.outbox.added();
  }

  async get(names: readonly string[]): Promise<Map<string, PressureRow>> {
    if (names.length === 0) return new Map();
    const rows: Record<string, unknown>[] = await this.ds.query(`SELECT * FROM nodes.node_pressure WHERE node_name = ANY($1::text[])`, [names]);
    return new Map(rows.map((r) => [r.node_name as string, toRow(r)]));
  }

  async list(node?: string): Promise<PressureRow[]> {
    const rows: Record<string, unknown>[] = node
      ? await this.ds.query(`SELECT * FROM nodes.node_pressure WHERE node_name = $1`, [node])
      : await this.ds.query(`SELECT * FROM nodes.node_pressure ORDER BY node_name`);
    return rows.map(toRow);
  }

  async save(r: PressureRow): Promise<void> {
    await fenced(this.ds, 'node_pressure', (tx) => tx.query(
      `INSERT INTO nodes.node_pressure (node_name, mode, status, cpu, memory, io, high_samples, sampled_at, last_relief)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
       ON CONFLICT (node_name) DO UPDATE SET mode = EXCLUDED.mode, status = EXCLUDED.status, cpu = EXCLUDED.cpu, memory = EXCLUDED.memory,
         io = EXCLUDED.io, high_samples = EXCLUDED.high_samples, sampled_at = EXCLUDED.sampled_at, last_relief = EXCLUDED.last_relief`,
      [r.node, r.mode, r.status, json(r.cpu), json(r.memory), json(r.io), r.highSamples, r.sampledAt, json(r.lastRelief)],
    ));
  }

  /** names — every node with a reading (some may have stopped opting in, or gone). */
  async names(): Promise<string[]> {
    const rows: Array<{ node_name: string }> = await this.ds.query(`SELECT node_name FROM nodes.node_pressure`);
    return rows.map((r) => r.node_name);
  }

  /** forget — the reading of a node that no longer opts in (or is gone) goes. */
  async forget(node: string): Promise<void> {
    await fenced(this.ds, 'node_pressure', (tx) => tx.query(`DELETE FROM nodes.node_pressure WHERE node_name = $1`, [node]));
  }
}

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v));
