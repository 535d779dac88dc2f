import type { JsonSchema } from '../json-schema.js';
import { closed, int, str } from '../json-schema.js';

/** CommandSchema — what one command takes and answers, and what it is for (docs/commands.md is generated from these). */
export interface CommandSchema {
  /** What the command does, in one sentence. */
  readonly summary: string;
  /** The JSON Schema of the request's `data`: closed, so an unknown field is refused with its name. */
  readonly request: JsonSchema;
  /** The JSON Schema of the reply's `data` (a successful reply): open, so a reader ignores fields it does not know. */
  readonly reply: JsonSchema;
}

/** Common request fields. */
export const limit = (max = 500): JsonSchema => ({ ...int('items per page'), minimum: 1, maximum: max });
export const cursor: JsonSchema = { ...str('the `nextCursor` of the previous page'), maxLength: 2048 };
/** noRequest — a command that takes nothing: `{}`. */
export const noRequest: JsonSchema = closed({});
/** A Kubernetes object name (a node), ≤ 253 characters. */
export const objectName = (description?: string): JsonSchema => ({ ...str(description), minLength: 1, maxLength: 253 });
