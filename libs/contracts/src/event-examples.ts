/**
 * Longer than 500 lines because it is recorded data, not code (regenerated, never edited by hand).
 * EVENT_EXAMPLES — events nodes-manager really published on `nodes.events`, one or two per routing key, recorded
 * by the split-mode end-to-end test (the six services against the simulators) and used as the `examples` of
 * docs/asyncapi.yaml. Regenerate: `UPDATE_DOCS=1 npm run test:e2e -- test/e2e/split.e2e.ts`, then the AsyncAPI
 * document (see libs/contracts/src/event-schemas.spec.ts).
 */
import type { CloudEvent, EventType } from './events.js';

export const EVENT_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = {
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
