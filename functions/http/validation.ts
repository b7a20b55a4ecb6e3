import * as z from 'zod';
import { MSG, badRequest, type ErrorMessage, type FieldError } from '../platform/errors';
import type { HttpEvent, RequestState } from './types';

export interface ValidationSpec {
  body?: z.ZodType;
  query?: z.ZodType;
  /** Message for a body that fails its schema (default `Invalid request parameters`); may depend on the issues. */
  bodyMessage?: ErrorMessage<400> | ((error: z.ZodError) => ErrorMessage<400>);
  /** Message for a query that fails its schema (default `Invalid query parameters`). */
  queryMessage?: ErrorMessage<400> | ((error: z.ZodError) => ErrorMessage<400>);
}

export function issuesToErrors(error: z.ZodError): FieldError[] {
  return error.issues.slice(0, 50).map((i) => ({
    path: i.path.map(String).join('.') || '(root)',
    message: i.code === 'unrecognized_keys' ? `Unrecognized field(s): ${i.keys.join(', ')}` : i.message,
  }));
}

export function readBody(event: HttpEvent): string {
  if (!event.body) return '';
  return event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
}

/**
 * The deepest nesting a JSON body may have. Schemas and refinements walk values recursively
 * (and JSON.stringify does), so a few kilobytes of `[[[[...]]]]` would overflow the stack
 * and answer 500 (DESIGN 9.2: bad input never reaches a 5xx). No request needs more than a
 * handful of levels; free-form `metadata` gets the rest of the room.
 */
export const MAX_BODY_DEPTH = 32;

/** Whether `value` nests deeper than `max` arrays or objects (iterative: never recurses). */
export function nestsDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (v === null || typeof v !== 'object') continue;
    if (depth + 1 > max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push([child, depth + 1]);
  }
  return false;
}

const tooDeep = new z.ZodError([
  { code: 'custom', path: [], message: `must nest at most ${MAX_BODY_DEPTH} levels of arrays and objects`, input: undefined },
]);

/** Parse JSON and validate body and query against the endpoint's zod schemas. */
export function validate(state: RequestState, event: HttpEvent, spec: ValidationSpec): void {
  if (spec.body) {
    let parsed: unknown = {};
    if (state.rawBody.trim() !== '') {
      try {
        parsed = JSON.parse(state.rawBody);
      } catch {
        throw badRequest(MSG.invalidJson);
      }
    }
    if (nestsDeeperThan(parsed, MAX_BODY_DEPTH))
      throw badRequest(message(spec.bodyMessage, tooDeep, MSG.invalidRequest), issuesToErrors(tooDeep));
    const r = spec.body.safeParse(parsed);
    if (!r.success) throw badRequest(message(spec.bodyMessage, r.error, MSG.invalidRequest), issuesToErrors(r.error));
    state.body = r.data;
  }
  if (spec.query) {
    const r = spec.query.safeParse(event.queryStringParameters ?? {});
    if (!r.success) throw badRequest(message(spec.queryMessage, r.error, MSG.invalidQuery), issuesToErrors(r.error));
    state.query = r.data;
  }
}

function message(m: ValidationSpec['bodyMessage'], error: z.ZodError, dflt: ErrorMessage<400>): ErrorMessage<400> {
  if (typeof m === 'function') return m(error);
  return m ?? dflt;
}
