/**
 * Steering's status (docs/steering.md#status): the `steering.status` reply. Data only. Steering runs in the
 * karpenter-gateway leader; its last pass is stored, so every replica answers the same.
 */

export const SteeringModes = ['off', 'plan', 'execute'] as const;
export type SteeringMode = (typeof SteeringModes)[number];

/** SteeringPassStates — how the last pass ended: none yet, decided, or waiting for a service it reads. */
export const SteeringPassStates = ['none', 'decided', 'waiting'] as const;
export type SteeringPassState = (typeof SteeringPassStates)[number];

/** SteeringRecommendations — without Karpenter (or in plan mode): what a NodePool admitting everything should drop. */
export interface SteeringRecommendations {
  instanceTypes: string[];
  zones: string[];
  /** `instanceType/zone` of every avoided pool. */
  pools: string[];
}

/** SteeringNodePoolPlan — a NodePool's last plan and what became of it (status, detail in words). */
export interface SteeringNodePoolPlan {
  nodePool: string;
  status: string;
  detail: string;
  plannedAt: string;
  [field: string]: unknown;
}

/** SteeringStatus — the `steering.status` reply. */
export interface SteeringStatus {
  mode: SteeringMode;
  karpenterInstalled: boolean;
  /** How the last pass ended (`none`: no pass yet). */
  state: SteeringPassState;
  /** When the last pass ran, whether it decided or waited (null: none yet). */
  passedAt: string | null;
  /** When the last pass that decided ran (null: none yet). */
  decidedAt: string | null;
  /** Why the last pass did not decide: a service it reads did not answer (absent when it decided). */
  waiting?: string;
  /** Each Spot pool's health: pool, instanceType, zone, state, since, reason, sentence, evidence, restoreAt. */
  pools: Record<string, unknown>[];
  nodePools: SteeringNodePoolPlan[];
  recommendations: SteeringRecommendations;
}
