import { UncordonReason, type UncordonVerdict } from '@nodes-manager/contracts';
import type { Admission } from '@nodes-manager/disruption';

/**
 * holdForPause — an `uncordon` verdict that the disruption gate does not admit (`admit('uncordon', …)`, libs/disruption:
 * auto-uncordon is restorative and goes on through a pause, unless the pause's scope is `all`; a pause state that is
 * unknown does not hold it — docs/pause.md) becomes `wait` with reason PAUSED, looked at again after
 * `requeueAfterMs`. Other verdicts pass unchanged.
 */
export function holdForPause(v: UncordonVerdict, admission: Admission, requeueAfterMs: number): UncordonVerdict {
  if (v.decision !== 'uncordon' || admission.admit) return v;
  return { ...v, decision: 'wait', reason: UncordonReason.PAUSED, requeueAfterMs };
}
