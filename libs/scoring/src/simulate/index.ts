// Placement simulation and its lower bound (docs/scoring.md): the public surface of simulate/. Each file holds one
// piece — types, offerings, existing-nodes (the first pass), the three packers (pattern-pack, greedy, ffd), the
// bounds (resource-lp, configuration-lp, lower-bound) and the knapsack that prices patterns.
export type { NodeAddition, Offering, SimulateConstraints, SimulateInput, SimulatePodGroup, SimulateResult, UnschedulableReason } from './types.js';
export { UNSCHEDULABLE_WORDS } from './types.js';
export { allocatableFor, offeringsFor } from './offerings.js';
export { BOUND_EFFORT, PACKING_EFFORT, type ConfigurationEffort } from './configuration-lp.js';
export { knapsackMax, knapsackSolve } from './knapsack.js';
export { lowerBoundCost, type LowerBoundResult } from './lower-bound.js';
export { firstFitDecreasing, simulatePlacement } from './simulate-placement.js';
