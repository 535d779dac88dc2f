/**
 * Events node-sync really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const NODE_SYNC_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "node.added": [
    {
      "id": "f973a370-bb0d-4d53-8129-5d34bf6d4d19",
      "data": {
        "uid": "e9f0b823-1b1f-4a09-ab60-a468a4b3014b",
        "name": "ip-10-106-255-163.ec2.internal",
        "zone": "us-east-1a",
        "ready": true,
        "state": "Ready",
        "nodePool": "general",
        "instanceId": "i-013a80d61037d0d50",
        "capacityType": "spot",
        "instanceType": "c6i.xlarge",
        "unschedulable": false
      },
      "time": "2026-12-01T12:37:38.283Z",
      "type": "node.added",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "subject": "ip-10-106-255-163.ec2.internal",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "node.removed": [
    {
      "id": "ec1fb5f8-8a6b-414b-a55d-7872ea82b1cd",
      "data": {
        "uid": "e9f0b823-1b1f-4a09-ab60-a468a4b3014b",
        "name": "ip-10-106-255-163.ec2.internal",
        "lastState": "Ready",
        "instanceId": "i-013a80d61037d0d50"
      },
      "time": "2026-12-01T12:38:05.477Z",
      "type": "node.removed",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "subject": "ip-10-106-255-163.ec2.internal",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "node.changed": [
    {
      "id": "af644769-9038-47bc-a516-62cdef071fdb",
      "data": {
        "name": "ip-10-106-255-163.ec2.internal",
        "after": {
          "ready": true,
          "state": "Cordoned",
          "taints": [
            {
              "key": "aws-node-termination-handler/rebalance-recommendation",
              "value": "1796128673",
              "effect": "NoSchedule"
            },
            {
              "key": "node.kubernetes.io/unschedulable",
              "value": null,
              "effect": "NoSchedule"
            }
          ],
          "allocatable": {
            "gpu": 0,
            "pods": 58,
            "cpuMilli": 3920,
            "memoryBytes": 7548698624
          },
          "unschedulable": true
        },
        "before": {
          "ready": true,
          "state": "Ready",
          "taints": [],
          "allocatable": {
            "gpu": 0,
            "pods": 58,
            "cpuMilli": 3920,
            "memoryBytes": 7548698624
          },
          "unschedulable": false
        },
        "changed": [
          "unschedulable",
          "state",
          "taints"
        ]
      },
      "time": "2026-12-01T12:37:54.198Z",
      "type": "node.changed",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "subject": "ip-10-106-255-163.ec2.internal",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "nodes.synced": [
    {
      "id": "7a7a8be9-570c-469c-bc9f-062e14b064aa",
      "data": {
        "pods": 301,
        "nodes": 12,
        "trigger": "initial-list-pods",
        "durationMs": 1375,
        "nodesAdded": 12,
        "podsRemoved": 0,
        "podsWritten": 301,
        "rowsWritten": {
          "podRows": 301,
          "nodeRows": 12
        },
        "nodesByState": {
          "Ready": 12,
          "Deleted": 0,
          "Cordoned": 0,
          "Draining": 0,
          "NotReady": 0
        },
        "nodesChanged": 0,
        "nodesRemoved": 0
      },
      "time": "2026-12-01T12:37:38.283Z",
      "type": "nodes.synced",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.node-sync": [
    {
      "specversion": "1.0",
      "id": "e5cc19c7-ac98-4b01-8807-0f980fce5cd2",
      "source": "nodes-manager/node-sync",
      "type": "heartbeat.node-sync",
      "time": "2026-12-01T12:37:34.643Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "node-sync",
        "mode": "split"
      }
    }
  ]
} as const;
