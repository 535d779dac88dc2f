import type { ApprovalPolicy, MaintenanceWindow } from '@nodes-manager/disruption';

/** The service's validated configuration (KarpenterGatewayConfig). */
export const KARPENTER_GATEWAY_CONFIG = Symbol('KARPENTER_GATEWAY_CONFIG');

export const KARPENTER_SERVICE_OPTIONS = Symbol('KARPENTER_SERVICE_OPTIONS');
export interface KarpenterServiceOptions {
  /** How long to wait for scheduler-scoring's plan; below the gateway's own timeout so its coded error arrives first. */
  planTimeoutMs: number;
}

export const CONSOLIDATION_APPROVALS = Symbol('CONSOLIDATION_APPROVALS');
/** KARPENTER_LEADER — the service's leader (lock `karpenter-gateway`): the one replica that runs steering passes. */
export const KARPENTER_LEADER = Symbol('KARPENTER_LEADER');
export const DISRUPTION_GATE = Symbol('DISRUPTION_GATE');
/** DisruptionGateConfig — DISRUPTION_APPROVAL and DISRUPTION_WINDOWS as karpenter-gateway applies them (docs/approvals.md). */
export interface DisruptionGateConfig {
  policy: ApprovalPolicy;
  windows: readonly MaintenanceWindow[];
}
