import type { DrainPod } from '../src/drain/domain/plan-drain.js';

let seq = 0;

/** aDrainPod — by default a running ReplicaSet pod without local storage: plainly evictable. */
export function aDrainPod(overrides: Partial<DrainPod> = {}): DrainPod {
  seq += 1;
  return {
    uid: `uid-${seq}`,
    namespace: 'default',
    name: `web-${seq}`,
    phase: 'Running',
    controller: { kind: 'ReplicaSet', name: 'web-7d9f' },
    mirror: false,
    hasEmptyDir: false,
    ...overrides,
  };
}

/** aNakedPod — no controller: nothing recreates it. */
export function aNakedPod(overrides: Partial<DrainPod> = {}): DrainPod {
  const { controller: _none, ...pod } = aDrainPod(overrides);
  return pod;
}
