/**
 * Events karpenter-gateway really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const KARPENTER_GATEWAY_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "nodepool.created": [
    {
      "id": "0604defa-dbbe-4592-8140-cdef81f4defa",
      "data": {
        "spec": {
          "limits": {
            "cpu": "100"
          },
          "template": {
            "spec": {
              "nodeClassRef": {
                "kind": "EC2NodeClass",
                "name": "default",
                "group": "karpenter.k8s.aws"
              },
              "requirements": [
                {
                  "key": "karpenter.sh/capacity-type",
                  "values": [
                    "spot"
                  ],
                  "operator": "In"
                }
              ]
            }
          },
          "disruption": {
            "budgets": [
              {
                "nodes": "10%"
              }
            ],
            "consolidateAfter": "1m",
            "consolidationPolicy": "WhenEmptyOrUnderutilized"
          }
        },
        "nodePool": "e2e-batch",
        "resourceVersion": "1462"
      },
      "time": "2026-12-01T12:38:04.223Z",
      "type": "nodepool.created",
      "actor": "test-operator",
      "source": "nodes-manager/karpenter-gateway",
      "subject": "e2e-batch",
      "specversion": "1.0",
      "correlationid": "85cfa825-1c7a-4e01-8c41-0e6e5edff9da",
      "datacontenttype": "application/json"
    }
  ],
  "nodepool.updated": [
    {
      "id": "94e18656-7eee-4ecb-975c-0356858e1b08",
      "data": {
        "after": {
          "limits": {
            "cpu": "200"
          },
          "disruption": {
            "budgets": [
              {
                "nodes": "10%"
              }
            ],
            "consolidateAfter": "1m",
            "consolidationPolicy": "WhenEmptyOrUnderutilized"
          }
        },
        "patch": {
          "limits": {
            "cpu": "200"
          }
        },
        "before": {
          "limits": {
            "cpu": "100"
          },
          "disruption": {
            "budgets": [
              {
                "nodes": "10%"
              }
            ],
            "consolidateAfter": "1m",
            "consolidationPolicy": "WhenEmptyOrUnderutilized"
          }
        },
        "nodePool": "e2e-batch",
        "resourceVersion": "1463"
      },
      "time": "2026-12-01T12:38:04.284Z",
      "type": "nodepool.updated",
      "actor": "test-operator",
      "source": "nodes-manager/karpenter-gateway",
      "subject": "e2e-batch",
      "specversion": "1.0",
      "correlationid": "7cf619be-e456-4feb-83f7-b600672341eb",
      "datacontenttype": "application/json"
    }
  ],
  "nodepool.deleted": [
    {
      "id": "1a4b5ff3-174e-4781-a6ba-765621e7f35e",
      "data": {
        "uid": "86fdd5c6-91f4-4adb-839c-b9bc1159a28b",
        "nodePool": "e2e-batch"
      },
      "time": "2026-12-01T12:38:04.676Z",
      "type": "nodepool.deleted",
      "actor": "test-operator",
      "source": "nodes-manager/karpenter-gateway",
      "subject": "e2e-batch",
      "specversion": "1.0",
      "correlationid": "1dfbef94-c18d-46e4-ad94-ce2e52bdb20d",
      "datacontenttype": "application/json"
    }
  ],
  "nodepool.consolidation.requested": [
    {
      "id": "c075c40e-75f9-476b-8d51-a96bb5925e44",
      "data": {
        "budget": {
          "active": [
            {
              "index": 0,
              "nodes": "10%",
              "allowed": 0
            }
          ],
          "allowed": {
            "Empty": 0,
            "Drifted": 0,
            "Underutilized": 0
          },
          "poolNodes": 0,
          "disrupting": 0
        },
        "dryRun": false,
        "failed": [],
        "planned": 0,
        "skipped": [],
        "nodePool": "e2e-batch",
        "nodeClaims": []
      },
      "time": "2026-12-01T12:38:04.598Z",
      "type": "nodepool.consolidation.requested",
      "actor": "test-operator",
      "source": "nodes-manager/karpenter-gateway",
      "subject": "e2e-batch",
      "specversion": "1.0",
      "correlationid": "eb756548-d56c-4608-b9be-8c43f7e5816b",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.karpenter-gateway": [
    {
      "specversion": "1.0",
      "id": "2ba54b89-bbe0-42ed-9014-c42847f34cf9",
      "source": "nodes-manager/karpenter-gateway",
      "type": "heartbeat.karpenter-gateway",
      "time": "2026-12-01T12:37:38.187Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "karpenter-gateway",
        "mode": "split"
      }
    }
  ]
} as const;
