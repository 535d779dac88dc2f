export { NORMALIZED_LABELS, REQUIREMENTS_DRIFTED, Requirements, requirementsDrifted, type NodeSelectorRequirement } from './requirements.js';
export { allowedDisruptions, budgetActive, DEFAULT_BUDGETS, DISRUPTION_REASONS, hitWithin, parseGoDuration, UNBOUNDED, type AllowedDisruptions, type BudgetCounts, type DisruptionBudget, type DisruptionReason, type NodePoolBudgets } from './budgets.js';
export { offeringKey, UNAVAILABLE_OFFERINGS_TTL_MS, UNFULFILLABLE_CAPACITY_CODES, UnavailableOfferings, type UnavailableOffering, type UnavailableReason } from './unavailable-offerings.js';
export { chooseOffering, offeringLabels, orderNodePools, PCO_CAPACITY_BAND, type CapacityType, type NodePoolLike, type Offering, type OfferingChoice, type UnavailableLookup } from './offerings.js';
export { actionFor, DISRUPTED_TAINT, KARPENTER_COMPONENT, notifyEvents, planInterruption, type InterruptionAction, type InterruptionKind, type InterruptionPlan, type KarpenterEvent } from './interruption.js';
export { SimKarpenter, startSimKarpenter, type SimKarpenterOptions, type SimKarpenterStats } from './sim-karpenter.js';
