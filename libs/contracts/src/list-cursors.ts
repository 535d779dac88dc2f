import { approvalKindOf } from './approvals.js';
import { cursorCodec, cursorParts as p } from './cursor.js';

/** NODE_SORTS — the orders `GET /api/v1/nodes` lists by; a node cursor names the one it was issued for. */
export const NODE_SORTS = ['name', '-name', 'created', '-created'] as const;

/**
 * LIST_CURSORS — the cursor of every paginated list, by its route under `/api/v1/` (docs/design.md#pagination): the
 * one place a list's sort key is declared, used by the list to issue and read its cursors and by the contract tests
 * to forge them.
 */
export const LIST_CURSORS = {
  /** `GET /api/v1/nodes`: the sort, the created time (null when sorted by name) and the name. */
  nodes: cursorCodec(p.oneOf(NODE_SORTS), p.nullable(p.timestamp), p.text),
  /** `GET /api/v1/cordons`: the node name. */
  cordons: cursorCodec(p.text),
  /** `GET /api/v1/events`: created time and id. */
  events: cursorCodec(p.timestamp, p.uuid),
  /** `GET /api/v1/decisions`: created time and id. */
  decisions: cursorCodec(p.timestamp, p.uuid),
  /** `GET /api/v1/workloads/placement`: `namespace/name` of the pod. */
  'workloads/placement': cursorCodec(p.text),
  /** `GET /api/v1/rebalances`: seen time and id. */
  rebalances: cursorCodec(p.timestamp, p.uuid),
  /** `GET /api/v1/approvals`: requested time and approval id (`optimize-<uuid>`…). */
  approvals: cursorCodec(p.timestamp, p.custom<string>('an approval id', (id) => approvalKindOf(id) !== undefined)),
} as const;
/** PaginatedList — a paginated list by its route under `/api/v1/` (`nodes`, `workloads/placement`). */
export type PaginatedList = keyof typeof LIST_CURSORS;
