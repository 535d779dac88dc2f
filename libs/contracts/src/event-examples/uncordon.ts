/**
 * Events uncordon really published on `nodes.events`, recorded by the split-mode end-to-end test (regenerated, never
 * edited by hand: see index.ts).
 */
import type { CloudEvent, EventType } from '../events.js';

export const UNCORDON_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
  "node.uncordoned": [
    {
      "id": "ba3c1928-17e1-442a-a7d4-ca8eb10a0471",
      "data": {
        "node": "ip-10-106-255-163.ec2.internal",
        "reason": "UNCORDON",
        "evidence": {
          "ready": true,
          "flapCount": 0,
          "provenance": "managed-fields",
          "readySince": "2026-01-12T21:50:55.000Z",
          "cordonManager": "node-termination-handler",
          "cordonedForMs": 3580,
          "cordonedSince": "2026-12-01T12:37:53.000Z",
          "rebalanceTaint": true,
          "cordonManagerKind": "node-termination-handler",
          "cordonedSinceSource": "managed-fields",
          "effectiveGraceMinutes": 0.05
        },
        "description": "uncordoned: cordoned by node-termination-handler since 2026-12-01T12:37:53.000Z, Ready since 2026-01-12T21:50:55.000Z, grace 0.05 m (k=0)",
        "uncordonedAt": "2026-12-01T12:37:56.580Z",
        "rebalanceTaintRemoved": true
      },
      "time": "2026-12-01T12:37:56.580Z",
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
      "id": "785201bf-c484-4761-a8d0-ab6e6c0c442a",
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
        "operationId": "2b3c8e78-cc69-4d16-9cf3-fc342a34f1d1"
      },
      "time": "2026-12-01T12:38:01.697Z",
      "type": "node.drain.started",
      "actor": "test-operator",
      "source": "nodes-manager/uncordon",
      "subject": "ip-10-86-137-75.ec2.internal",
      "specversion": "1.0",
      "correlationid": "04dfc90c-3cbd-4b56-ac95-e2cec2d2f2ff",
      "datacontenttype": "application/json"
    }
  ],
  "node.drain.completed": [
    {
      "id": "b8c04bb9-cd9d-4aa2-8a96-356b656f209f",
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
        "operationId": "2b3c8e78-cc69-4d16-9cf3-fc342a34f1d1"
      },
      "time": "2026-12-01T12:38:04.095Z",
      "type": "node.drain.completed",
      "actor": "test-operator",
      "source": "nodes-manager/uncordon",
      "subject": "ip-10-86-137-75.ec2.internal",
      "specversion": "1.0",
      "correlationid": "04dfc90c-3cbd-4b56-ac95-e2cec2d2f2ff",
      "datacontenttype": "application/json"
    }
  ],
  "heartbeat.uncordon": [
    {
      "specversion": "1.0",
      "id": "a0bdf22d-9d39-4329-867b-db37160a2365",
      "source": "nodes-manager/uncordon",
      "type": "heartbeat.uncordon",
      "time": "2026-12-01T12:37:36.137Z",
      "datacontenttype": "application/json",
      "data": {
        "service": "uncordon",
        "mode": "split"
      }
    }
  ]
} as const;
