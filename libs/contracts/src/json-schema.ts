/**
 * The small vocabulary every JSON Schema of libs/contracts is written in (draft-07, plain objects): the `data` of each
 * event (event-schemas.ts) and the request and reply of each command (command-schemas/). Data only.
 */

/** JsonSchema — a JSON Schema as a plain object. */
export type JsonSchema = { readonly [key: string]: unknown };

const described = (description?: string) => (description ? { description } : {});

export const str = (description?: string): JsonSchema => ({ type: 'string', ...described(description) });
export const nullableStr = (description?: string): JsonSchema => ({ type: ['string', 'null'], ...described(description) });
/** int — a count: a whole number, at least 0. */
export const int = (description?: string): JsonSchema => ({ type: 'integer', minimum: 0, ...described(description) });
export const num = (description?: string): JsonSchema => ({ type: 'number', ...described(description) });
export const nullableNum = (description?: string): JsonSchema => ({ type: ['number', 'null'], ...described(description) });
export const bool = (description?: string): JsonSchema => ({ type: 'boolean', ...described(description) });
export const time = (description?: string): JsonSchema => ({ type: 'string', format: 'date-time', ...described(description) });
export const nullableTime = (description?: string): JsonSchema => ({ type: ['string', 'null'], format: 'date-time', ...described(description) });
export const uuid = (description?: string): JsonSchema => ({ type: 'string', format: 'uuid', ...described(description) });
export const arrayOf = (items: JsonSchema, description?: string): JsonSchema => ({ type: 'array', items, ...described(description) });
export const anyObject = (description?: string): JsonSchema => ({ type: 'object', ...described(description) });
export const oneOf = (values: readonly string[], description?: string): JsonSchema => ({ type: 'string', enum: [...values], ...described(description) });
/** nullable — the schema, or null. */
export const nullable = (schema: JsonSchema): JsonSchema => ({ oneOf: [schema, { type: 'null' }] });
/** mapOf — an object whose every value has this schema (labels, tags, counts by key). */
export const mapOf = (values: JsonSchema, description?: string): JsonSchema => ({ type: 'object', additionalProperties: values, ...described(description) });

/** closed — an object with exactly these properties; those not listed in `optional` are required. */
export function closed(properties: Record<string, JsonSchema>, optional: readonly string[] = [], description?: string): JsonSchema {
  return {
    type: 'object',
    ...described(description),
    properties,
    required: Object.keys(properties).filter((k) => !optional.includes(k)),
    additionalProperties: false,
  };
}

/**
 * open — an object with at least these properties (those not in `optional` required), and possibly more: what a reply
 * may grow without breaking its readers, who ignore fields they do not know.
 */
export function open(properties: Record<string, JsonSchema>, optional: readonly string[] = [], description?: string): JsonSchema {
  return { type: 'object', ...described(description), properties, required: Object.keys(properties).filter((k) => !optional.includes(k)) };
}

/** page — `{items, nextCursor?}`: a keyset page of `item`; pass `nextCursor` back as `cursor`, absent on the last page. */
export const page = (item: JsonSchema, description?: string): JsonSchema =>
  open({ items: arrayOf(item), nextCursor: str('absent on the last page') }, ['nextCursor'], description);
