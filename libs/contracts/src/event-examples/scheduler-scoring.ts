/**
 * Events scheduler-scoring really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const SCHEDULER_SCORING_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "scheduling.decided": [
    {
      "id": "e03f6dc0-c33f-49a5-bf0e-349d1754e575",
      "data": {
        "id": "8f482123-9ba2-4627-b7c0-33cd85da528d",
        "kind": "scale_up",
        "actor": "system:scheduler-scoring",
        "score": null,
        "reason": "no_pending_pods",
        "details": {
          "pendingPods": 0,
          "priceSource": "bundled-catalog"
        },
        "outcome": "none",
        "subject": "cluster",
        "createdAt": "2026-12-01T12:37:46.570Z",
        "rationale": "No pending pods: no capacity to add.",
        "correlationId": "4c6a0a19-e10b-44b2-920d-ed986290d876"
      },
      "time": "2026-12-01T12:37:46.570Z",
      "type": "scheduling.decided",
      "actor": "system:scheduler-scoring",
      "source": "nodes-manager/scheduler-scoring",
      "subject": "cluster",
      "specversion": "1.0",
      "correlationid": "4c6a0a19-e10b-44b2-920d-ed986290d876",
      "datacontenttype": "application/json"
    }
  ],
  "optimize.planned": [
    {
      "id": "2b3cf885-9aa2-40e3-8fe3-6c92ba7a8b70",
      "data": {
        "mode": "plan",
        "dryRun": true,
        "planId": "724f02cf-62e3-43ab-bc6d-0885b1039281",
        "remove": [],
        "blocked": 2,
        "priceSource": "bundled-catalog",
        "hourlySavingsUsd": 0,
        "monthlySavingsUsd": 0
      },
      "time": "2026-12-01T12:37:46.570Z",
      "type": "optimize.planned",
      "actor": "system:scheduler-scoring",
      "source": "nodes-manager/scheduler-scoring",
      "specversion": "1.0",
      "correlationid": "4c6a0a19-e10b-44b2-920d-ed986290d876",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.scheduler-scoring": [
    {
      "specversion": "1.0",
      "id": "615be92f-b04a-493d-8a51-ed1058312009",
      "source": "nodes-manager/scheduler-scoring",
      "type": "heartbeat.scheduler-scoring",
      "time": "2026-12-01T12:37:41.100Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "scheduler-scoring",
        "mode": "split"
      }
    }
  ]
} as const;
