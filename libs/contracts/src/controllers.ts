import type { DisruptionKind } from './approvals.js';
import type { ServiceName } from './events.js';

/**
 * CONTROLLER_OWNER — every controller a service runs, by name (its metrics' `controller` label), and the service (or
 * services, for one libs/platform gives several) that run it. A service makes only the controllers listed for it (libs/platform `Controllers` refuses any other), and
 * docs/design.md's controllers table is generated from this list (test/architecture/docs-tables.spec.ts), so the
 * table, the metrics and the code name the same controllers. An owner's approvals controller is `<kind>-approvals`.
 */
export const CONTROLLER_OWNER = {
  'node-sync': 'node-sync',
  retention: ['node-sync', 'uncordon', 'scheduler-scoring', 'karpenter-gateway', 'spot-advisor'],
  optimize: 'scheduler-scoring',
  'optimize-trigger': 'scheduler-scoring',
  'optimize-approvals': 'scheduler-scoring',
  steering: 'karpenter-gateway',
  'steer-approvals': 'karpenter-gateway',
  'consolidate-approvals': 'karpenter-gateway',
  'cluster-heartbeat': 'karpenter-gateway',
  'auto-uncordon': 'uncordon',
  'rebalance-ledger': 'uncordon',
  drain: 'uncordon',
  fencing: 'uncordon',
  fences: 'uncordon',
  'fence-approvals': 'uncordon',
  pressure: 'uncordon',
  'pause-expiry': 'uncordon',
} as const satisfies Readonly<Record<string, ServiceName | readonly ServiceName[]> & Record<`${DisruptionKind}-approvals`, ServiceName>>;

export type ControllerName = keyof typeof CONTROLLER_OWNER;

/** controllerOwners — the services that run controller `name` (none for a name the catalogue lacks). */
export const controllerOwners = (name: string): readonly ServiceName[] => {
  const o = (CONTROLLER_OWNER as Readonly<Record<string, ServiceName | readonly ServiceName[]>>)[name];
  return o === undefined ? [] : typeof o === 'string' ? [o] : o;
};

/** controllersOf — the controllers `service` runs, in the catalogue's order. */
export const controllersOf = (service: ServiceName): ControllerName[] =>
  (Object.keys(CONTROLLER_OWNER) as ControllerName[]).filter((c) => controllerOwners(c).includes(service));
