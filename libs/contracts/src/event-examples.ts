/**
 * EVENT_EXAMPLES — events nodes-manager really published on `nodes.events`, one or two per routing key, recorded
 * by the split-mode end-to-end test (the six services against the simulators) and used as the `examples` of
 * docs/asyncapi.yaml. Regenerate: `UPDATE_DOCS=1 npm run test:e2e -- test/e2e/split.e2e.ts`, then the AsyncAPI
 * document (see libs/contracts/src/event-schemas.spec.ts).
 */
import type { CloudEvent, EventType } from './events.js';

export const EVENT_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "node.added": [
    {
      "id": "7741965b-6104-4316-b812-e66eb1e55f8c",
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
      "time": "2026-12-01T12:08:34.467Z",
      "type": "node.added",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "subject": "ip-10-106-255-163.ec2.internal",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "node.changed": [
    {
      "id": "d9d6e005-90c5-45ff-aca6-65d072999f10",
      "data": {
        "name": "ip-10-106-255-163.ec2.internal",
        "after": {
          "ready": true,
          "state": "Cordoned",
          "taints": [
            {
              "key": "aws-node-termination-handler/rebalance-recommendation",
              "value": "1796126920",
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
      "time": "2026-12-01T12:08:41.064Z",
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
      "id": "426f9518-4e64-4b0d-b9d3-c924f80df34e",
      "data": {
        "pods": 301,
        "nodes": 12,
        "trigger": "initial-list-pods",
        "durationMs": 420,
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
      "time": "2026-12-01T12:08:34.467Z",
      "type": "nodes.synced",
      "actor": "system:node-sync",
      "source": "nodes-manager/node-sync",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "node.uncordoned": [
    {
      "id": "dfa0ab00-4395-4d84-bb92-943fb47409b1",
      "data": {
        "node": "ip-10-106-255-163.ec2.internal",
        "reason": "UNCORDON",
        "evidence": {
          "ready": true,
          "flapCount": 0,
          "provenance": "managed-fields",
          "readySince": "2026-01-12T21:50:55.000Z",
          "cordonManager": "node-termination-handler",
          "cordonedForMs": 3158,
          "cordonedSince": "2026-12-01T12:08:40.000Z",
          "rebalanceTaint": true,
          "cordonManagerKind": "node-termination-handler",
          "cordonedSinceSource": "managed-fields",
          "effectiveGraceMinutes": 0.05
        },
        "description": "uncordoned: cordoned by node-termination-handler since 2026-12-01T12:08:40.000Z, Ready since 2026-01-12T21:50:55.000Z, grace 0.05 m (k=0)",
        "uncordonedAt": "2026-12-01T12:08:43.158Z",
        "rebalanceTaintRemoved": true
      },
      "time": "2026-12-01T12:08:43.158Z",
      "type": "node.uncordoned",
      "actor": "system:uncordon",
      "source": "nodes-manager/uncordon",
      "subject": "ip-10-106-255-163.ec2.internal",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "node.drain.started": [
    {
      "id": "fd772322-fe1c-469a-99f6-ac5af0b2c326",
      "data": {
        "node": "ip-10-86-137-75.ec2.internal",
        "status": "running",
        "progress": {
          "pods": [
            {
              "pod": "ml/indexer-gpu-30-jks594jxx-d2nxg",
              "phase": "pending",
              "attempts": 0
            }
          ],
          "errors": [],
          "refused": [],
          "resumed": 0,
          "skipped": [
            {
              "pod": "kube-system/aws-node-pb7vj",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/ebs-csi-node-4l5db",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/kube-proxy-p275m",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/node-problem-detector-ip-10-86-137-75.ec2.internal",
              "reason": "MIRROR"
            },
            {
              "pod": "kube-system/nvidia-device-plugin-htdp7",
              "reason": "DAEMONSET"
            },
            {
              "pod": "platform/node-exporter-lh8lp",
              "reason": "DAEMONSET"
            }
          ],
          "pdbWaits": 0,
          "podsLeft": 1,
          "podsTotal": 1
        },
        "operationId": "fb061ceb-8df4-4cca-9da0-908f9880b6c6"
      },
      "time": "2026-12-01T12:08:44.335Z",
      "type": "node.drain.started",
      "actor": "test-operator",
      "source": "nodes-manager/uncordon",
      "subject": "ip-10-86-137-75.ec2.internal",
      "specversion": "1.0",
      "correlationid": "3f6d9ff4-f300-4e63-a456-02289396be8f",
      "datacontenttype": "application/json"
    }
  ],
  "node.drain.completed": [
    {
      "id": "2a1fbba1-8543-4134-82fb-7a74af472f1f",
      "data": {
        "node": "ip-10-86-137-75.ec2.internal",
        "status": "completed",
        "message": "drained",
        "progress": {
          "pods": [
            {
              "pod": "ml/indexer-gpu-30-jks594jxx-d2nxg",
              "phase": "gone",
              "attempts": 1
            }
          ],
          "errors": [],
          "message": "drained",
          "refused": [],
          "resumed": 0,
          "skipped": [
            {
              "pod": "kube-system/aws-node-pb7vj",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/ebs-csi-node-4l5db",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/kube-proxy-p275m",
              "reason": "DAEMONSET"
            },
            {
              "pod": "kube-system/node-problem-detector-ip-10-86-137-75.ec2.internal",
              "reason": "MIRROR"
            },
            {
              "pod": "kube-system/nvidia-device-plugin-htdp7",
              "reason": "DAEMONSET"
            },
            {
              "pod": "platform/node-exporter-lh8lp",
              "reason": "DAEMONSET"
            }
          ],
          "outcomes": [
            {
              "pod": "ml/indexer-gpu-30-jks594jxx-d2nxg",
              "outcome": "EVICTED"
            },
            {
              "pod": "kube-system/aws-node-pb7vj",
              "outcome": "SKIPPED_DAEMONSET"
            },
            {
              "pod": "kube-system/ebs-csi-node-4l5db",
              "outcome": "SKIPPED_DAEMONSET"
            },
            {
              "pod": "kube-system/kube-proxy-p275m",
              "outcome": "SKIPPED_DAEMONSET"
            },
            {
              "pod": "kube-system/node-problem-detector-ip-10-86-137-75.ec2.internal",
              "outcome": "SKIPPED_MIRROR"
            },
            {
              "pod": "kube-system/nvidia-device-plugin-htdp7",
              "outcome": "SKIPPED_DAEMONSET"
            },
            {
              "pod": "platform/node-exporter-lh8lp",
              "outcome": "SKIPPED_DAEMONSET"
            }
          ],
          "pdbWaits": 0,
          "podsLeft": 0,
          "podsTotal": 1
        },
        "operationId": "fb061ceb-8df4-4cca-9da0-908f9880b6c6"
      },
      "time": "2026-12-01T12:08:46.423Z",
      "type": "node.drain.completed",
      "actor": "test-operator",
      "source": "nodes-manager/uncordon",
      "subject": "ip-10-86-137-75.ec2.internal",
      "specversion": "1.0",
      "correlationid": "3f6d9ff4-f300-4e63-a456-02289396be8f",
      "datacontenttype": "application/json"
    }
  ],
  "scheduling.decided": [
    {
      "id": "928f3e17-5e6d-40e2-9816-6292d6a0e1d5",
      "data": {
        "id": "99970d7a-53ab-45bd-9cd8-540a7ea2c2ed",
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
        "createdAt": "2026-12-01T12:08:38.648Z",
        "rationale": "No pending pods: no capacity to add.",
        "correlationId": "85850a75-ec7a-4ddd-ab2a-bba94f550e5e"
      },
      "time": "2026-12-01T12:08:38.648Z",
      "type": "scheduling.decided",
      "actor": "system:scheduler-scoring",
      "source": "nodes-manager/scheduler-scoring",
      "subject": "cluster",
      "specversion": "1.0",
      "correlationid": "85850a75-ec7a-4ddd-ab2a-bba94f550e5e",
      "datacontenttype": "application/json"
    }
  ],
  "optimize.planned": [
    {
      "id": "e99cf04c-6fa9-404b-8668-3f1829f359be",
      "data": {
        "mode": "plan",
        "dryRun": true,
        "planId": "82d27617-ebc6-4fd4-977b-aa017bd6140c",
        "remove": [],
        "blocked": 2,
        "priceSource": "bundled-catalog",
        "hourlySavingsUsd": 0,
        "monthlySavingsUsd": 0
      },
      "time": "2026-12-01T12:08:38.648Z",
      "type": "optimize.planned",
      "actor": "system:scheduler-scoring",
      "source": "nodes-manager/scheduler-scoring",
      "specversion": "1.0",
      "correlationid": "85850a75-ec7a-4ddd-ab2a-bba94f550e5e",
      "datacontenttype": "application/json"
    }
  ],
  "spot.prices.refreshed": [
    {
      "id": "ca1abf14-90c6-43ab-b038-61eb4106576d",
      "data": {
        "pools": 126,
        "zones": [
          "us-east-1a",
          "us-east-1b",
          "us-east-1c"
        ],
        "region": "us-east-1",
        "samples": 4758,
        "inserted": 4758,
        "fetchedAt": "2026-12-01T12:08:41.097Z",
        "windowEnd": "2026-12-01T12:08:41.097Z",
        "windowStart": "2026-11-24T12:08:41.097Z",
        "instanceTypes": 42
      },
      "time": "2026-12-01T12:08:41.097Z",
      "type": "spot.prices.refreshed",
      "actor": "system:spot-advisor",
      "source": "nodes-manager/spot-advisor",
      "subject": "us-east-1",
      "specversion": "1.0",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.api-gateway": [
    {
      "specversion": "1.0",
      "id": "9c62048a-ed61-4b09-ad58-780e86aab60a",
      "source": "nodes-manager/api-gateway",
      "type": "heartbeat.api-gateway",
      "time": "2026-12-01T12:08:36.947Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "api-gateway",
        "mode": "split"
      }
    }
  ],
  "heartbeat.node-sync": [
    {
      "specversion": "1.0",
      "id": "db1aa134-0d60-4878-9ffd-5fb3c26a2a5d",
      "source": "nodes-manager/node-sync",
      "type": "heartbeat.node-sync",
      "time": "2026-12-01T12:08:32.780Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "node-sync",
        "mode": "split"
      }
    }
  ],
  "heartbeat.uncordon": [
    {
      "specversion": "1.0",
      "id": "5bcc48bb-fe7e-488e-af0c-b58abe7d7b90",
      "source": "nodes-manager/uncordon",
      "type": "heartbeat.uncordon",
      "time": "2026-12-01T12:08:34.261Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "uncordon",
        "mode": "split"
      }
    }
  ],
  "heartbeat.scheduler-scoring": [
    {
      "specversion": "1.0",
      "id": "6bc5bc74-154c-4812-9d1c-34f77f3735b0",
      "source": "nodes-manager/scheduler-scoring",
      "type": "heartbeat.scheduler-scoring",
      "time": "2026-12-01T12:08:36.755Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "scheduler-scoring",
        "mode": "split"
      }
    }
  ],
  "heartbeat.karpenter-gateway": [
    {
      "specversion": "1.0",
      "id": "3daf21a7-010e-458e-8512-bd1004b5dee4",
      "source": "nodes-manager/karpenter-gateway",
      "type": "heartbeat.karpenter-gateway",
      "time": "2026-12-01T12:08:35.354Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "karpenter-gateway",
        "mode": "split"
      }
    }
  ],
  "heartbeat.spot-advisor": [
    {
      "specversion": "1.0",
      "id": "3dafef6e-ecb9-4958-ae83-45be41813873",
      "source": "nodes-manager/spot-advisor",
      "type": "heartbeat.spot-advisor",
      "time": "2026-12-01T12:08:39.759Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "spot-advisor",
        "mode": "split"
      }
    }
  ]
} as const;
