import { describe, expect, it } from '@jest/globals';
import { planInterruption, type InterruptionKind } from './interruption.js';

describe('planInterruption (interruption/utils.go, events/events.go)', () => {
  it.each<[InterruptionKind, string, 'Normal' | 'Warning', string, boolean, boolean]>([
    ['rebalance_recommendation', 'SpotRebalanceRecommendation', 'Normal', 'NoAction', false, false],
    ['spot_interrupted', 'SpotInterrupted', 'Warning', 'CordonAndDrain', true, true],
    ['instance_stopped', 'InstanceStopping', 'Warning', 'CordonAndDrain', true, false],
    ['instance_terminated', 'InstanceTerminating', 'Warning', 'CordonAndDrain', true, false],
    ['scheduled_change', 'InstanceUnhealthy', 'Warning', 'CordonAndDrain', true, false],
    ['capacity_reservation_interrupted', 'CapacityReservationInstanceInterrupted', 'Warning', 'CordonAndDrain', true, false],
    ['instance_status', 'InstanceUnhealthy', 'Warning', 'ForcefulTermination', true, false],
  ])('%s: a %s Event (%s) on the NodeClaim and the Node, action %s, deletes %s, ICE entry %s', (kind, reason, type, action, deletes, ice) => {
    const plan = planInterruption(kind, { hasNode: true });
    expect(plan.notify.map((e) => [e.on, e.type, e.reason])).toEqual([['NodeClaim', type, reason], ['Node', type, reason]]);
    expect([plan.action, plan.deleteNodeClaim, plan.markUnavailable]).toEqual([action, deletes, ice]);
    expect(plan.onDelete.map((e) => [e.on, e.type, e.reason])).toEqual(deletes ? [['NodeClaim', 'Warning', 'TerminatingOnInterruption'], ['Node', 'Warning', 'TerminatingOnInterruption']] : []);
    expect(plan.taint).toEqual(deletes ? { key: 'karpenter.sh/disrupted', effect: 'NoSchedule' } : undefined);
  });

  it('uses events.go\'s exact messages', () => {
    const plan = planInterruption('spot_interrupted', { hasNode: true });
    expect([...plan.notify, ...plan.onDelete].map((e) => e.message)).toEqual([
      'Spot interruption warning was triggered',
      'Spot interruption warning was triggered',
      'Interruption triggered termination for the NodeClaim',
      'Interruption triggered termination for the Node',
    ]);
  });

  it('a NodeClaim whose Node is gone gets its Events alone', () => {
    const plan = planInterruption('spot_interrupted', { hasNode: false });
    expect([...plan.notify, ...plan.onDelete].map((e) => e.on)).toEqual(['NodeClaim', 'NodeClaim']);
    expect(plan.taint).toBeUndefined();
  });

  it('a NodeClaim already deleting is not deleted again', () => {
    const plan = planInterruption('spot_interrupted', { hasNode: true, deleting: true });
    expect([plan.deleteNodeClaim, plan.onDelete.length, plan.notify.length]).toEqual([false, 0, 2]);
  });

  it('instance health failures skip the graceful drain (termination timestamp); interruptions do not', () => {
    expect(planInterruption('system_status', { hasNode: true }).terminationTimestamp).toBe(true);
    expect(planInterruption('spot_interrupted', { hasNode: true }).terminationTimestamp).toBe(false);
  });
});
