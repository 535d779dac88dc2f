import { ServiceNames, type ServiceName } from './events.js';

/** Commands — request/reply patterns (`<noun>.<verb>`) and the service that owns each. */
export const Commands = {
  nodesList: 'nodes.list',
  nodeGet: 'node.get',
  nodeHoursList: 'nodehours.list',
  nodeDrain: 'node.drain',
  drainGet: 'drain.get',
  cordonsList: 'cordons.list',
  eventsList: 'events.list',
  rebalancesList: 'rebalances.list',
  rebalancesSummary: 'rebalances.summary',
  interruptionsList: 'interruptions.list',
  interruptionsRates: 'interruptions.rates',
  decisionsList: 'decisions.list',
  optimizePlan: 'optimize.plan',
  optimizeTrigger: 'optimize.trigger',
  optimizeReplace: 'optimize.replace',
  simulate: 'simulate.run',
  placementList: 'placement.list',
  nodepoolsList: 'nodepools.list',
  nodepoolGet: 'nodepool.get',
  nodepoolCreate: 'nodepool.create',
  nodepoolUpdate: 'nodepool.update',
  nodepoolDelete: 'nodepool.delete',
  nodeclaimsList: 'nodeclaims.list',
  nodepoolConsolidate: 'nodepool.consolidate',
  steeringStatus: 'steering.status',
  steeringReport: 'steering.report',
  steeringPools: 'steering.pools',
  spotMarket: 'spot.market',
  spotPrices: 'spot.prices',
  spotHistory: 'spot.history',
  instanceTypesList: 'instancetypes.list',
  instanceProvision: 'instance.provision',
  instanceFence: 'instance.fence',
  instancesDescribe: 'instances.describe',
  fencingStatus: 'fencing.status',
  pressureList: 'pressure.list',
  pauseGet: 'pause.get',
  pauseSet: 'pause.set',
  pauseClear: 'pause.clear',
  serviceStatus: 'service.status',
} as const;
export type CommandPattern = (typeof Commands)[keyof typeof Commands];

export const COMMAND_OWNER: Record<Exclude<CommandPattern, 'service.status'>, ServiceName> = {
  'nodes.list': 'node-sync',
  'node.get': 'node-sync',
  'nodehours.list': 'node-sync',
  'node.drain': 'uncordon',
  'drain.get': 'uncordon',
  'cordons.list': 'uncordon',
  'events.list': 'uncordon',
  'rebalances.list': 'uncordon',
  'rebalances.summary': 'uncordon',
  'interruptions.list': 'uncordon',
  'interruptions.rates': 'uncordon',
  'decisions.list': 'scheduler-scoring',
  'optimize.plan': 'scheduler-scoring',
  'optimize.trigger': 'scheduler-scoring',
  'optimize.replace': 'scheduler-scoring',
  'simulate.run': 'scheduler-scoring',
  'placement.list': 'scheduler-scoring',
  'nodepools.list': 'karpenter-gateway',
  'nodepool.get': 'karpenter-gateway',
  'nodepool.create': 'karpenter-gateway',
  'nodepool.update': 'karpenter-gateway',
  'nodepool.delete': 'karpenter-gateway',
  'nodeclaims.list': 'karpenter-gateway',
  'nodepool.consolidate': 'karpenter-gateway',
  'steering.status': 'karpenter-gateway',
  'steering.report': 'karpenter-gateway',
  'steering.pools': 'karpenter-gateway',
  'spot.market': 'spot-advisor',
  'spot.prices': 'spot-advisor',
  'spot.history': 'spot-advisor',
  'instancetypes.list': 'spot-advisor',
  'instance.provision': 'spot-advisor',
  'instance.fence': 'spot-advisor',
  'instances.describe': 'spot-advisor',
  'fencing.status': 'uncordon',
  'pressure.list': 'uncordon',
  // The pause of disruptive actions (docs/pause.md): uncordon keeps it (PAUSE_OWNER).
  'pause.get': 'uncordon',
  'pause.set': 'uncordon',
  'pause.clear': 'uncordon',
};

/**
 * commandOwner — the service that answers a pattern as it travels: a command's owner ({@link COMMAND_OWNER}), or the
 * service a per-service pattern names (`service.status.uncordon`, `approvals.list.scheduler-scoring`). A caller never
 * names it: the pattern says.
 */
export function commandOwner(pattern: string): ServiceName {
  const named = /^(?:service\.status|approvals\.(?:list|get|approve|reject))\.(.+)$/.exec(pattern)?.[1];
  const owner = named ?? (COMMAND_OWNER as Record<string, ServiceName | undefined>)[pattern];
  if (!owner || !(ServiceNames as readonly string[]).includes(owner)) throw new Error(`no service answers ${pattern}`);
  return owner as ServiceName;
}

/** serviceQueue — the durable command queue of a service. */
export const serviceQueue = (service: ServiceName): string => `nodes-manager.${service}`;

/** serviceStatusPattern — every service answers this with its readiness, so the gateway's /readyz can ask. */
export const serviceStatusPattern = <S extends ServiceName>(service: S): `service.status.${S}` => `service.status.${service}`;

/** ApprovalVerb — what the approval commands do: list, get one, approve, reject. */
export type ApprovalVerb = 'list' | 'get' | 'approve' | 'reject';

/**
 * approvalPattern — the approval commands of one owning service (libs/contracts `APPROVAL_OWNERS`), named per service
 * (`approvals.list.scheduler-scoring`) like `service.status.<service>`, so that in one process each service keeps its
 * own handler; the gateway picks the service by the approval id's kind, or asks them all and merges
 * (docs/approvals.md).
 */
export const approvalPattern = <S extends ServiceName, V extends ApprovalVerb>(service: S, verb: V): `approvals.${V}.${S}` => `approvals.${verb}.${service}`;
