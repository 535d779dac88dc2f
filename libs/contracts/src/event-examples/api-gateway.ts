/**
 * Events api-gateway really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const API_GATEWAY_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "heartbeat.api-gateway": [
    {
      "specversion": "1.0",
      "id": "6bae888c-ee7e-436a-9acc-2950abd0bed7",
      "source": "nodes-manager/api-gateway",
      "type": "heartbeat.api-gateway",
      "time": "2026-12-01T12:37:41.719Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "api-gateway",
        "mode": "split"
      }
    }
  ]
} as const;
