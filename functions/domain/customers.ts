/**
 * Customer batch rules (DESIGN 6.9), pure: validation of one bank-supplied Customer item,
 * the readable reason of an invalid one, and the in-batch duplicate rule. The store
 * (customers/store.ts) adds the duplicate check against the bank's existing customers.
 */
import * as z from 'zod';
import { checkText } from './text';
import { isAssignedCountryCode } from './countries';

/** Enforced maximum records per request (DESIGN 6.9); 100 to 500 is the recommendation. */
export const MAX_CUSTOMERS_PER_BATCH = 1000;
/** Longest reason sentence kept for a failure entry. */
export const MAX_REASON_LENGTH = 300;
/** Longest clientRef echoed in a failure entry (longer ones are invalid anyway). */
const MAX_ECHOED_CLIENT_REF = 100;

const REQUIRED = 'is required';

/** A required string field: trimmed, non-empty, bounded, no control or bidi characters (DESIGN 8.1). */
const text = (max: number) =>
  z
    .string({ error: (iss) => (iss.input === undefined ? REQUIRED : 'must be a string') })
    .trim()
    .min(1, 'must not be empty')
    .max(max, `must be at most ${max} characters`)
    .superRefine(checkText);

/** Absent, null and blank optional fields all mean "not provided" (exports from bank systems send ""). */
const blankToUndefined = (v: unknown) => (v === null || (typeof v === 'string' && v.trim() === '') ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankToUndefined, schema.optional());

export const customerItemSchema = z.strictObject({
  clientRef: text(100),
  firstname: text(100),
  middlename: optional(text(100)),
  lastname: text(100),
  accountName: optional(text(200)),
  email: text(254).pipe(z.email({ error: 'must be a valid email address' })),
  country: text(2 + 8)
    .transform((s) => s.toUpperCase())
    .refine(isAssignedCountryCode, 'must be an assigned ISO 3166-1 alpha-2 country code'),
  accountNumber: text(64).regex(/^\d{6,20}$/, 'must be 6 to 20 digits'),
  reference: text(100),
  address: optional(text(500)),
  gender: optional(text(32)),
  phone: optional(text(32).regex(/^\+?[0-9][0-9 ()-]{2,31}$/, 'must be a phone number (digits, spaces, +, - and parentheses)')),
});

/** A valid, normalized Customer item (trimmed; country upper case; blank optionals removed). */
export type CustomerInput = z.output<typeof customerItemSchema>;

export type ItemCheck = { ok: true; value: CustomerInput } | { ok: false; reason: string };

/** Lower-cased, trimmed email: the key emails are compared by (case-insensitively). */
export { normalizeEmail } from './email';

/** Validates one record; an invalid one gets a sentence naming every invalid field. */
export function checkCustomerItem(raw: unknown): ItemCheck {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, reason: 'Record must be a JSON object' };
  }
  const r = customerItemSchema.safeParse(raw);
  if (r.success) return { ok: true, value: r.data };
  return { ok: false, reason: reasonOf(r.error) };
}

function reasonOf(error: z.ZodError): string {
  const missing: string[] = [];
  const unknown: string[] = [];
  const invalid: string[] = [];
  for (const issue of error.issues) {
    const field = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') unknown.push(...issue.keys);
    else if (issue.message === REQUIRED) missing.push(field);
    else if (!invalid.some((s) => s.startsWith(`Invalid ${field}:`))) invalid.push(`Invalid ${field}: ${issue.message}`);
  }
  const parts: string[] = [];
  if (missing.length) parts.push(`Missing required field${missing.length > 1 ? 's' : ''}: ${missing.join(', ')}`);
  parts.push(...invalid);
  if (unknown.length) parts.push(`Unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}`);
  const reason = parts.join('; ');
  return reason.length > MAX_REASON_LENGTH ? `${reason.slice(0, MAX_REASON_LENGTH - 3)}...` : reason;
}

/** One record that failed, as reported by GET /v1/bank/customers/batches/{batchId}. */
export interface BatchFailure {
  index: number;
  clientRef: string | null;
  reason: string;
}

export interface FailureEntry extends BatchFailure {
  kind: 'invalid' | 'duplicate';
}

export const DUPLICATE_REASON = {
  clientRefInBatch: (first: number) => `Duplicate clientRef: same as the record at index ${first} of this batch`,
  referenceInBatch: (first: number) => `Duplicate reference: same as the record at index ${first} of this batch`,
  clientRefExisting: 'Duplicate clientRef: the bank already has a customer with this clientRef',
  referenceExisting: 'Duplicate reference: the bank already has a customer with this reference',
} as const;

/** The clientRef to echo in a failure entry: the record's own, when it is a string. */
export function echoedClientRef(raw: unknown): string | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const v = (raw as Record<string, unknown>).clientRef;
  if (typeof v !== 'string') return null;
  const t = v.trim();
  return t === '' ? null : t.slice(0, MAX_ECHOED_CLIENT_REF);
}

export interface BatchPlan {
  /** Valid records that are not duplicates inside the batch, in input order. */
  candidates: { index: number; input: CustomerInput }[];
  /** Invalid records and in-batch duplicates, in input order. */
  failures: FailureEntry[];
}

/**
 * Validates every record and applies the in-batch duplicate rule: a valid record whose
 * clientRef or reference was already used by an EARLIER VALID record of the batch is a
 * duplicate (an invalid record is never created, so it claims nothing). Validation comes
 * first: an invalid record counts as invalidData, never as a duplicate.
 */
export function planBatch(records: readonly unknown[]): BatchPlan {
  const candidates: BatchPlan['candidates'] = [];
  const failures: FailureEntry[] = [];
  const byClientRef = new Map<string, number>();
  const byReference = new Map<string, number>();
  records.forEach((raw, index) => {
    const check = checkCustomerItem(raw);
    if (!check.ok) {
      failures.push({ index, clientRef: echoedClientRef(raw), reason: check.reason, kind: 'invalid' });
      return;
    }
    const { clientRef, reference } = check.value;
    const firstCref = byClientRef.get(clientRef);
    const firstRef = byReference.get(reference);
    if (firstCref !== undefined) {
      failures.push({ index, clientRef, reason: DUPLICATE_REASON.clientRefInBatch(firstCref), kind: 'duplicate' });
      return;
    }
    if (firstRef !== undefined) {
      failures.push({ index, clientRef, reason: DUPLICATE_REASON.referenceInBatch(firstRef), kind: 'duplicate' });
      return;
    }
    byClientRef.set(clientRef, index);
    byReference.set(reference, index);
    candidates.push({ index, input: check.value });
  });
  return { candidates, failures };
}

export interface BatchSummary {
  total: number;
  successful: number;
  failed: number;
  duplicates: number;
  invalidData: number;
}

/** The spec's summary: failed = duplicates + invalidData, successful = created. */
export function summarize(total: number, created: number, failures: readonly FailureEntry[]): BatchSummary {
  const duplicates = failures.filter((f) => f.kind === 'duplicate').length;
  const invalidData = failures.length - duplicates;
  return { total, successful: created, failed: duplicates + invalidData, duplicates, invalidData };
}
