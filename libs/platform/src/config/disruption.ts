import { z } from 'zod';
import { parseApprovalPolicy, parseWindows } from '@nodes-manager/disruption';
import { env } from './config.js';

/**
 * disruptionShape — the variables of the approval and maintenance-window gate, shared by every service that owns a
 * disruptive action (docs/approvals.md). Parsed once at start into their values; a bad one refuses the start naming
 * the variable and every problem in it.
 */
export const disruptionShape = {
  /** `automatic` (default) | `manual`, or per kind: `automatic,optimize=manual`. */
  DISRUPTION_APPROVAL: z.preprocess(
    (v) => (typeof v === 'string' ? v : ''),
    z.string().transform((raw, ctx) => {
      const p = parseApprovalPolicy(raw);
      if (!p.ok) {
        ctx.addIssue({ code: 'custom', message: p.problems.join('; ') });
        return z.NEVER;
      }
      return p.policy;
    }),
  ),
  /** `<cron> <duration> <time zone> [nodePool=<name>]; …` — empty: disruption may start at any time. */
  DISRUPTION_WINDOWS: z.preprocess(
    (v) => (typeof v === 'string' ? v : ''),
    z.string().transform((raw, ctx) => {
      const p = parseWindows(raw);
      if (!p.ok) {
        ctx.addIssue({ code: 'custom', message: p.problems.join('; ') });
        return z.NEVER;
      }
      return p.windows;
    }),
  ),
  /** How long a pending approval waits for a decision before it expires. */
  APPROVAL_TTL_MINUTES: env.number({ dflt: 60, min: 1, max: 7 * 24 * 60, int: true }),
  /** When true, nobody approves a request they made themselves. */
  APPROVAL_DISTINCT_APPROVER: env.bool(false),
};
