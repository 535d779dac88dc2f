import { UncordonReason, type UncordonVerdict } from '@nodes-manager/contracts';
import type { PauseCheck } from '@nodes-manager/disruption';

/**
 * holdForPause — auto-uncordon is restorative and goes on through a pause, unless the pause's scope is `all`
 * (docs/pause.md): then an `uncordon` verdict becomes `wait` with reason PAUSED, looked at again after
 * `requeueAfterMs`. A pause state that is unknown does not hold it: giving capacity back is never what a pause is
 * for unless an operator said so. Other verdicts pass unchanged.
 */
export function holdForPause(v: UncordonVerdict, pause: PauseCheck, requeueAfterMs: number): UncordonVerdict {
  if (v.decision !== 'uncordon' || pause.go || pause.reason !== 'paused') return v;
  return { ...v, decision: 'wait', reason: UncordonReason.PAUSED, requeueAfterMs };
}
