/**
 * The AsyncAPI 3.0 document of `nodes.events`, built from the event schemas (docs/asyncapi.yaml is generated from
 * {@link asyncApiDocument}, and a test checks the two agree). Data only: no I/O.
 */
import { ALL_EVENT_TYPES, EVENTS_EXCHANGE, type CloudEvent, type EventType } from './events.js';
import { EVENT_EXAMPLES } from './event-examples/index.js';
import { EVENT_DATA_SCHEMAS } from './event-schemas.js';
import { eventSources } from './event-sources.js';
import { str, time, uuid, type JsonSchema } from './json-schema.js';

/** cloudEventSchema — the whole message of one routing key: the CloudEvents 1.0 envelope with that `type` and `data`. */
export function cloudEventSchema(type: EventType): JsonSchema {
  return {
    type: 'object',
    description: 'CloudEvents 1.0, JSON structured mode; the AMQP routing key equals `type`.',
    properties: {
      specversion: { const: '1.0' },
      id: uuid('unique per event; consumers deduplicate on it'),
      source: eventSources(type).length === 1 ? { const: `nodes-manager/${eventSources(type)[0]}` } : { enum: eventSources(type).map((s) => `nodes-manager/${s}`) },
      type: { const: type },
      time: time(),
      datacontenttype: { const: 'application/json' },
      subject: str('the node, NodePool or region the event is about'),
      actor: str('who asked: a JWT sub, or system:<service> for the loops'),
      correlationid: str('ties the request, the action and its events together'),
      clusterid: str('the id of the cluster that published the event (CLUSTER_ID; an EKS cluster ARN, or the name)'),
      clustername: str('the name of the cluster that published the event (CLUSTER_NAME)'),
      data: EVENT_DATA_SCHEMAS[type],
    },
    required: ['specversion', 'id', 'source', 'type', 'time', 'datacontenttype', 'data'],
    additionalProperties: false,
  };
}

/** messageName — an AsyncAPI component name for a routing key (`node.drain.started` → `nodeDrainStarted`). */
export const messageName = (type: EventType): string => type.replace(/[.-]([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * asyncApiDocument — AsyncAPI 3.1 for `nodes.events`, written from the producer's side: one channel per routing key
 * (an AMQP topic exchange binding), one `send` operation per channel (nodes-manager publishes; a subscriber reads the
 * same document as what it may receive), one message per routing key whose payload is the CloudEvent with that
 * key's data schema. Delivery properties (persistent, timestamped) are AMQP *operation* bindings; the message
 * binding only names the message type. `examples` are events nodes-manager really published ({@link EVENT_EXAMPLES}).
 */
export function asyncApiDocument(version: string, examples: Readonly<Partial<Record<EventType, readonly CloudEvent[]>>> = EVENT_EXAMPLES): Record<string, unknown> {
  const channels: Record<string, unknown> = {};
  const operations: Record<string, unknown> = {};
  const messages: Record<string, unknown> = {};
  for (const type of ALL_EVENT_TYPES) {
    const name = messageName(type);
    const summary = (EVENT_DATA_SCHEMAS[type]['description'] as string | undefined) ?? `${type} from ${eventSources(type).join(", ")}`;
    const seen = examples[type] ?? [];
    messages[name] = {
      name: type,
      title: type,
      summary,
      contentType: 'application/cloudevents+json',
      payload: cloudEventSchema(type),
      correlationId: { description: 'The CloudEvents `correlationid` extension: the request, the action and its events.', location: '$message.payload#/correlationid' },
      bindings: { amqp: { messageType: type, bindingVersion: '0.3.0' } },
      ...(seen.length ? { examples: seen.map((ev, i) => ({ name: `${name}Example${i + 1}`, summary: `A ${type} event as published`, payload: ev })) } : {}),
    };
    channels[name] = {
      address: type,
      title: type,
      description: `Routing key \`${type}\` on the \`${EVENTS_EXCHANGE}\` topic exchange, published by ${eventSources(type).join(' and ')}.`,
      messages: { [name]: { $ref: `#/components/messages/${name}` } },
      bindings: {
        amqp: { is: 'routingKey', exchange: { name: EVENTS_EXCHANGE, type: 'topic', durable: true, autoDelete: false, vhost: '/' }, bindingVersion: '0.3.0' },
      },
    };
    operations[`send${name[0]!.toUpperCase()}${name.slice(1)}`] = {
      action: 'send',
      title: `Publish ${type}`,
      summary,
      channel: { $ref: `#/channels/${name}` },
      messages: [{ $ref: `#/channels/${name}/messages/${name}` }],
      bindings: { amqp: { deliveryMode: 2, mandatory: false, timestamp: true, bindingVersion: '0.3.0' } },
    };
  }
  return {
    asyncapi: '3.1.0',
    info: {
      title: 'nodes-manager events',
      version,
      description: [
        `Every action of nodes-manager is published as a CloudEvent 1.0 (JSON structured mode) on the durable topic exchange \`${EVENTS_EXCHANGE}\`,`,
        'persistent and with publisher confirms, from a transactional outbox: an outage delays events, it never drops them, and an event may arrive',
        'more than once — deduplicate on the CloudEvents `id`. The routing key equals the CloudEvents `type`; bind your own queue with',
        'a key or a pattern (`node.#`, `nodepool.*`, `heartbeat.*`). Generated from libs/contracts/src/event-schemas.ts.',
      ].join(' '),
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    defaultContentType: 'application/cloudevents+json',
    servers: {
      rabbitmq: { host: 'rabbitmq:5672', protocol: 'amqp', protocolVersion: '0.9.1', description: 'The RabbitMQ of RABBITMQ_URL.' },
    },
    channels,
    operations,
    components: { messages },
  };
}
