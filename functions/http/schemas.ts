import * as z from 'zod';
import { DECISION_VALUES } from '../domain/decisions';
import { isLagosDate } from '../domain/lagos-time';
import { checkText } from '../domain/text';

/** Shared request schema pieces (one place each). */
export const MAX_PAGE = 100;

const intString = (min: number, max: number, dflt: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .optional()
    .transform((v) => v ?? dflt);

/** `startingAfter`: the id of the last item of the previous page (DESIGN 8, 8.9). */
const startingAfter = z.string().min(1).max(128).optional();
/**
 * limit (1..100, default 20), skip (default 0; any safe integer) and startingAfter: customer decisions,
 * recurring, transactions, deliveries. `http/paging.ts` refuses skip + limit above 10,000.
 */
export const skipPaging = { limit: intString(1, MAX_PAGE, 20), skip: intString(0, Number.MAX_SAFE_INTEGER, 0), startingAfter };
/** limit, offset and startingAfter: provider lists. */
export const offsetPaging = { limit: intString(1, MAX_PAGE, 20), offset: intString(0, Number.MAX_SAFE_INTEGER, 0), startingAfter };
/** The release-2 list shape (DESIGN 8): limit (1..100, default 20) and startingAfter (an id from the previous page). */
export const cursorPaging = { limit: intString(1, MAX_PAGE, 20), startingAfter };

export const boolString = z.enum(['true', 'false']).transform((v) => v === 'true');

/** A customer decision value (the bank's answer, its change, and the decision lists' filter). */
export const decisionValueSchema = z.enum(DECISION_VALUES);

/** The text rules of domain/text.ts added to a string schema (keeps its type: chain on). */
export const refuseUnsafe = <T extends z.ZodString>(s: T): T => s.superRefine(checkText) as T;

/** A free-text field: trimmed, `min`..`max` characters, no control or bidi characters, no secret. */
export const safeText = (max: number, min = 1) => refuseUnsafe(z.string().trim().min(min).max(max));

export const nonEmpty = (max = 500) => safeText(max);

/** A free text that may span lines (evidence): like `safeText`, but line breaks and tabs are allowed. */
export const multilineText = (max: number, min = 1) =>
  z
    .string()
    .trim()
    .min(min)
    .max(max)
    .superRefine((v, ctx) => checkText(v.replace(/[\t\r\n]/g, ' '), ctx));

export const isoDateTime = z.iso.datetime({ offset: true });

/**
 * The dates a query parameter may name (DESIGN 10.3): 2000-01-01 to 2099-12-31. Outside them:
 * 400 with the endpoint's query message and the parameter named, never a date computed past
 * the calendar's end (a 5xx).
 */
export const QUERY_DATES = { first: '2000-01-01', last: '2099-12-31' } as const;
const OUTSIDE_DATES = `must be from ${QUERY_DATES.first} to ${QUERY_DATES.last}`;
const FIRST_MS = Date.parse(`${QUERY_DATES.first}T00:00:00.000Z`);
const AFTER_LAST_MS = Date.parse(`${QUERY_DATES.last}T00:00:00.000Z`) + 86_400_000;

/** A calendar day in a query (`YYYY-MM-DD`, a Lagos date) within QUERY_DATES. */
export const queryDay = z
  .string()
  .superRefine((v, ctx) => {
    if (!isLagosDate(v)) ctx.addIssue({ code: 'custom', message: 'must be a date YYYY-MM-DD' });
    else if (v < QUERY_DATES.first || v > QUERY_DATES.last) ctx.addIssue({ code: 'custom', message: OUTSIDE_DATES });
  })
  .describe(`A Lagos date, YYYY-MM-DD, from ${QUERY_DATES.first} to ${QUERY_DATES.last}.`);

/** An instant in a query (ISO 8601 date-time, any offset) within QUERY_DATES (UTC). */
export const queryInstant = isoDateTime
  .refine((v) => {
    const ms = Date.parse(v);
    return ms >= FIRST_MS && ms < AFTER_LAST_MS;
  }, `${OUTSIDE_DATES} (UTC)`)
  .describe(`An ISO 8601 date-time with an offset, from ${QUERY_DATES.first} to ${QUERY_DATES.last} (UTC).`);
