/**
 * EVENT_EXAMPLES — events nodes-manager really published on `nodes.events`, one per routing key, recorded by the
 * split-mode end-to-end test (the six services against the simulators) and used as the `examples` of
 * docs/asyncapi.yaml; one file per publishing service. Regenerate: `UPDATE_DOCS=1 npm run test:e2e --
 * test/e2e/split.e2e.ts`, then the AsyncAPI document (see libs/contracts/src/event-schemas.spec.ts).
 */
import { ALL_EVENT_TYPES, type CloudEvent, type EventType } from '../events.js';
import { API_GATEWAY_EXAMPLES } from './api-gateway.js';
import { NODE_SYNC_EXAMPLES } from './node-sync.js';
import { UNCORDON_EXAMPLES } from './uncordon.js';
import { SCHEDULER_SCORING_EXAMPLES } from './scheduler-scoring.js';
import { KARPENTER_GATEWAY_EXAMPLES } from './karpenter-gateway.js';
import { SPOT_ADVISOR_EXAMPLES } from './spot-advisor.js';

const RECORDED: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = { ...API_GATEWAY_EXAMPLES, ...NODE_SYNC_EXAMPLES, ...UNCORDON_EXAMPLES, ...SCHEDULER_SCORING_EXAMPLES, ...KARPENTER_GATEWAY_EXAMPLES, ...SPOT_ADVISOR_EXAMPLES };

/** In the order of {@link ALL_EVENT_TYPES}, as the document lists them. */
export const EVENT_EXAMPLES: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = Object.fromEntries(
  ALL_EVENT_TYPES.filter((t) => RECORDED[t]).map((t) => [t, RECORDED[t]!]),
);
