export { startEc2Sim, SPOT_HISTORY_DAYS, SPOT_WARNING_MS } from './ec2-sim.js';
export type { Ec2Sim, Ec2SimCall, Ec2SimFaults, Ec2SimOptions, InterruptionMessage } from './ec2-sim.js';
export type { AdoptedInstance, SimInstance, SimInstanceStateName, SimTag } from './instances.js';
export { INSTANCE_TRANSITION_MS, SPOT_TERMINATION_REASON } from './instances.js';
export { Ec2ApiError } from './query.js';
export { SPOT_PRODUCT_DESCRIPTIONS, volatilityOf, type SpotVolatility } from './spot-prices.js';
