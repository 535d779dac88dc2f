import { createHash } from 'node:crypto';
import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { COMMAND_SCHEMAS, commandNameOf, type CommandName, type FieldProblem, type ServiceName } from '@nodes-manager/contracts';
import { CodedError, validationFailed } from '../errors/coded-error.js';

/**
 * The command catalogue's JSON Schemas (libs/contracts command-schemas/) at run time: a request is checked where it is
 * sent (the caller gets VALIDATION_FAILED naming the field, before anything travels — a 400 at the gateway) and where
 * it is handled; a reply where it is produced and, when the receiver's schemas differ from the producer's
(SCHEMAS_DIGEST), where it is received. A reply that breaks its schema is a bug of the
 * service that produced it: a loud error in the log and a failed call, never a silent pass. Validation with Ajv
 * (docs/stack.md): the validators are compiled once per process, on first use. Defaults a schema declares (`force` of
 * `instance.fence`) are filled in.
 */

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: true, strictRequired: false, allowUnionTypes: true, useDefaults: true }));
const compiled = new Map<string, ValidateFunction>();

function validatorOf(name: CommandName, side: 'request' | 'reply'): ValidateFunction {
  const key = `${name} ${side}`;
  let v = compiled.get(key);
  if (!v) {
    v = ajv.compile(COMMAND_SCHEMAS[name][side]);
    compiled.set(key, v);
  }
  return v;
}

/** fieldOf — Ajv's `/spec/limits/cpu` as `spec.limits.cpu`, with the missing or unknown property it names. */
function problemOf(e: ErrorObject): FieldProblem {
  const path = e.instancePath.split('/').slice(1).map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = e.params as { missingProperty?: string; additionalProperty?: string; allowedValues?: unknown[] };
  if (e.keyword === 'required') return { in: 'command', field: [...path, params.missingProperty].join('.'), message: 'is required' };
  if (e.keyword === 'additionalProperties') return { in: 'command', field: [...path, params.additionalProperty].join('.'), message: 'is not a known field' };
  const field = path.length ? path.join('.') : 'data';
  if (e.keyword === 'enum') return { in: 'command', field, message: `must be one of ${(params.allowedValues ?? []).map(String).join(', ')}` };
  return { in: 'command', field, message: e.message ?? 'is not valid' };
}

/** problemsOf — what is wrong with `data` as the request or reply of `name`; [] when nothing is. */
function problemsOf(name: CommandName, side: 'request' | 'reply', data: unknown): FieldProblem[] {
  const validate = validatorOf(name, side);
  if (validate(data)) return [];
  // `oneOf` repeats the problems of each branch; one line per field and message is enough.
  const seen = new Set<string>();
  return (validate.errors ?? []).map(problemOf).filter((p) => !seen.has(`${p.field} ${p.message}`) && seen.add(`${p.field} ${p.message}`));
}

/** UntypedCommandError — a pattern with no schema in the catalogue: refused wherever it shows up. */
export class UntypedCommandError extends CodedError {
  constructor(pattern: string) {
    super('INTERNAL', `command ${pattern} has no schema in libs/contracts (COMMAND_SCHEMAS): an untyped command is refused`, { pattern });
  }
}

/** catalogueName — the catalogue name of a pattern, or an UntypedCommandError. */
export function catalogueName(pattern: string): CommandName {
  const name = commandNameOf(pattern);
  if (!name) throw new UntypedCommandError(pattern);
  return name;
}

/**
 * checkRequest — the request `data` of `pattern`, checked (and completed with its schema's defaults); throws
 * VALIDATION_FAILED naming every bad field (`in: 'command'`), or UntypedCommandError.
 */
export function checkRequest(pattern: string, data: unknown): void {
  const problems = problemsOf(catalogueName(pattern), 'request', data);
  if (problems.length) throw validationFailed(problems, pattern);
}

/** ReplyContractError — a reply that breaks its command's schema: which service, which command, which fields. */
export class ReplyContractError extends CodedError {
  constructor(
    readonly service: ServiceName | string,
    readonly pattern: string,
    readonly problems: readonly FieldProblem[],
  ) {
    super('UPSTREAM_ERROR', `${service} answered ${pattern} with a reply that breaks its schema: ${problems.map((p) => `${p.field}: ${p.message}`).join('; ')}`, {
      service,
      pattern,
    });
  }
}

/** replyProblems — what is wrong with `data` as the reply of `pattern` (as it travels: JSON); [] when nothing is. */
export function replyProblems(pattern: string, data: unknown): FieldProblem[] {
  return problemsOf(catalogueName(pattern), 'reply', data);
}

/**
 * SCHEMAS_DIGEST — a digest of this process's command schemas. A handler marks each reply it checked with it
 * (`CommandReply.checked`); a caller whose digest is the same would check it against the very same schemas, so it
 * does not check it again: every reply is checked once against each set of schemas it meets — twice across versions
 * (a rolling upgrade), once within one. A reply without the mark (another build, a hand-made reply) is checked.
 */
export const SCHEMAS_DIGEST = createHash('sha256').update(JSON.stringify(COMMAND_SCHEMAS)).digest('hex').slice(0, 16);

/** checkReply — throws {@link ReplyContractError} when `data` breaks the reply schema of `pattern`. */
export function checkReply(service: ServiceName | string, pattern: string, data: unknown): void {
  const problems = replyProblems(pattern, data);
  if (problems.length) throw new ReplyContractError(service, pattern, problems);
}

/**
 * asWire — a value as it travels between processes (JSON): Dates become strings, undefined fields go. A value that is
 * JSON already (plain objects, arrays, strings, finite numbers, booleans, null — what most replies are, built with
 * ISO strings) is returned as it is: only one that would change is copied through JSON, so a reply is not serialised
 * twice on its way out (a page of 100 nodes: ≈ 14 ms of the handling process's loop under load, docs/benchmarks.md).
 */
export const asWire = (value: unknown): unknown => (value === undefined ? null : isWire(value) ? value : JSON.parse(JSON.stringify(value)));

/** isWire — whether `value` is unchanged by a JSON round trip (no Date, toJSON, undefined, non-finite number, class instance). */
function isWire(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(value);
    case 'object': {
      if (value === null) return true;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) if (!isWire(value[i])) return false;
        return true;
      }
      const proto = Object.getPrototypeOf(value);
      if (proto !== Object.prototype && proto !== null) return false;
      if (typeof (value as { toJSON?: unknown }).toJSON === 'function') return false;
      for (const k in value) if (!isWire((value as Record<string, unknown>)[k])) return false;
      return true;
    }
    default:
      return false;
  }
}
