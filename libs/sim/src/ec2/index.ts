export { startEc2Sim, SPOT_HISTORY_DAYS } from './ec2-sim.js';
export type { Ec2Sim, Ec2SimCall, Ec2SimFaults, Ec2SimOptions } from './ec2-sim.js';
export type { AdoptedInstance, SimInstance, SimInstanceStateName, SimTag } from './instances.js';
export { INSTANCE_TRANSITION_MS, SPOT_TERMINATION_REASON } from './instances.js';
export { SPOT_PRODUCT_DESCRIPTIONS, volatilityOf, type SpotVolatility } from './spot-prices.js';
