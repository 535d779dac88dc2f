/**
 * Events spot-advisor really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const SPOT_ADVISOR_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "spot.prices.refreshed": [
    {
      "id": "ec501fb2-b95b-4303-abf5-b91cc61dc35a",
      "data": {
        "pools": 126,
        "zones": [
          "us-east-1a",
          "us-east-1b",
          "us-east-1c"
        ],
        "region": "us-east-1",
        "samples": 4755,
        "inserted": 4755,
        "fetchedAt": "2026-12-01T12:37:51.163Z",
        "windowEnd": "2026-12-01T12:37:51.163Z",
        "windowStart": "2026-11-24T12:37:51.163Z",
        "instanceTypes": 42
      },
      "time": "2026-12-01T12:37:51.163Z",
      "type": "spot.prices.refreshed",
      "actor": "system:spot-advisor",
      "source": "nodes-manager/spot-advisor",
      "subject": "us-east-1",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "instance.provisioned": [
    {
      "id": "0d7ec686-eda9-4a76-91fd-c72f42996dfe",
      "data": {
        "count": 1,
        "region": "us-east-1",
        "requestId": "c0bb7e25-d68a-4948-9444-d2c4bcb4aed4",
        "clientToken": "e2e-6aa340e9-0cdb-4ad4-9668-5b9a5432f538",
        "instanceIds": [
          "i-f49079bd5d944cb19"
        ],
        "requestedBy": "test-operator",
        "instanceType": "m5.large",
        "reservationId": "r-d143bc94c631230b0"
      },
      "time": "2026-12-01T12:38:04.790Z",
      "type": "instance.provisioned",
      "actor": "test-operator",
      "source": "nodes-manager/spot-advisor",
      "subject": "r-d143bc94c631230b0",
      "specversion": "1.0",
      "correlationid": "305ee6b8-9ad7-4a55-8465-ef6fd5f72deb",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.spot-advisor": [
    {
      "specversion": "1.0",
      "id": "daec98dc-d8c1-4963-abef-96622004a492",
      "source": "nodes-manager/spot-advisor",
      "type": "heartbeat.spot-advisor",
      "time": "2026-12-01T12:37:48.723Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "spot-advisor",
        "mode": "split"
      }
    }
  ]
} as const;
