import * as z from 'zod';
import { assertSupportedCurrency } from '../../billing/bill-request';
import { BILLING_MSG } from '../../billing/messages';
import { getBillingCustomers } from '../../bills/reads';
import { readAgreementPhrase } from '../../domain/agreement-phrase';
import { withinSingleLimit } from '../../domain/decisions';
import { toMajor } from '../../domain/money';
import { SECRET_IN_TEXT, SECRET_IN_TEXT_MESSAGE } from '../../domain/text';
import { amountSchema, currencySchema } from '../../http/money-schemas';
import { DEFAULT_INTERVAL, FREQUENCIES, MAX_INTERVAL, scheduleProblems } from '../../domain/schedule-dates';
import { canCreateRecurring, trustOf } from '../../domain/trust';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, badRequest, conflict, forbidden, notFound } from '../../platform/errors';
import { isoDateTime, nonEmpty } from '../../http/schemas';
import { getDecision, type DecisionItem } from '../../decisions/views';
import { getParticipant } from '../../identity/participant-store';
import { buildSchedule, saveNewSchedule } from '../../recurring/store';
import { nowIso } from '../../platform/table';
import { clockNow } from '../../platform/clock';

/** Metadata bounds: a free-form object, stored as JSON text (never interpreted). */
export const METADATA_MAX_KEYS = 50;
export const METADATA_MAX_BYTES = 4096;

/** JSON numbers must stay finite (1e400 parses to Infinity, which JSON cannot carry back). */
function finiteEverywhere(v: unknown): boolean {
  if (typeof v === 'number') return Number.isFinite(v);
  if (Array.isArray(v)) return v.every(finiteEverywhere);
  if (v && typeof v === 'object') return Object.values(v).every(finiteEverywhere);
  return true;
}

const metadataSchema = z
  .record(z.string().min(1).max(100), z.unknown())
  .refine((m) => Object.keys(m).length <= METADATA_MAX_KEYS, `must have at most ${METADATA_MAX_KEYS} keys`)
  .refine(finiteEverywhere, 'numbers must be finite')
  .refine((m) => Buffer.byteLength(JSON.stringify(m)) <= METADATA_MAX_BYTES, `must be at most ${METADATA_MAX_BYTES} bytes as JSON`)
  .refine((m) => !SECRET_IN_TEXT.test(JSON.stringify(m)), SECRET_IN_TEXT_MESSAGE);

const bodySchema = z
  .strictObject({
    customerId: z.string().trim().min(1).max(100),
    agreementPhrase: z.string().min(1).max(1000),
    amount: amountSchema,
    currency: currencySchema,
    frequency: z.enum(FREQUENCIES),
    interval: z.number().int().min(1).max(MAX_INTERVAL).optional(),
    startDate: isoDateTime,
    endDate: isoDateTime.nullable().optional(),
    maxBillings: z.number().int().min(1).nullable().optional(),
    description: nonEmpty(500).nullable().optional(),
    metadata: metadataSchema.nullable().optional(),
  })
  .superRefine((b, ctx) => {
    const start = new Date(b.startDate);
    const end = b.endDate ? new Date(b.endDate) : null;
    const problems = scheduleProblems({
      frequency: b.frequency,
      interval: b.interval,
      startDate: start,
      endDate: end,
      maxBillings: b.maxBillings ?? undefined,
    });
    for (const p of problems) ctx.addIssue({ code: 'custom', path: [p.path], message: p.message });
    if (end && !problems.some((p) => p.path === 'endDate' || p.path === 'startDate')) {
      if (end.getTime() <= start.getTime()) ctx.addIssue({ code: 'custom', path: ['endDate'], message: 'must be after startDate' });
    }
  });

/**
 * `endDate` must be in the future of the request's clock: its test clock's time with
 * `X-Test-Clock` (DESIGN 8.7), real time otherwise. Checked in the handler, which runs on that
 * clock (the schema is checked before the clock is known).
 */
function refusePastEndDate(endDate: string | null | undefined): void {
  if (endDate && Date.parse(endDate) <= clockNow().getTime())
    throw badRequest(MSG.invalidRequest, [{ path: 'endDate', message: 'must be in the future' }]);
}

const responseSchema = z.object({
  scheduleId: z.string(),
  customerId: z.string(),
  amount: z.number(),
  frequency: z.enum(FREQUENCIES),
  status: z.literal('active'),
  nextBillingDate: z.string(),
});

const permissionRequired = () => badRequest(MSG.recurringPermissionRequired);

/** Attempts when the decision changes between the checks and the write (each re-checks). */
const MAX_ATTEMPTS = 5;

/**
 * POST /v1/billing/recurring/create (merchant; a provider with X-Entity-Id). Refusal order
 * (DESIGN 6.9): body -> 400 `Invalid request parameters` (`Unsupported currency` for a
 * well-formed non-NGN code); merchant not trusted premium -> 403; the phrase's decision
 * blocks the merchant -> 403; phrase unknown / foreign / tampered, customerId not the
 * phrase's customer, or decision not approve_recurring -> 400; amount above the decision's
 * `single` limit -> 403. Then ONE transaction writes the schedule (due at startDate, at once
 * when that is not in the future) and `schedule.created`, conditioned on the decision and the
 * merchant's trust being what was checked.
 */
export const handler = endpoint(
  { body: bodySchema, response: responseSchema, description: 'Create a recurring schedule' },
  async ({ body, principal }) => {
    refusePastEndDate(body.endDate);
    assertSupportedCurrency(body.currency);
    const merchantId = principal.id;

    for (let attempt = 1; ; attempt++) {
      const merchant = await getParticipant(merchantId);
      if (merchant?.type !== 'merchant') throw notFound(MSG.merchantNotFound);
      if (!canCreateRecurring(trustOf(merchant))) throw forbidden(MSG.recurringTrustRequired);

      const id = await readAgreementPhrase(body.agreementPhrase, merchantId);
      const found = id ? await getDecision(id) : undefined;
      const decision: DecisionItem | undefined = found && found.merchantId === merchantId ? found : undefined;
      if (decision?.blockMerchant) throw forbidden(BILLING_MSG.merchantBlocked);
      if (!decision || decision.customerId !== body.customerId || decision.decision !== 'approve_recurring') throw permissionRequired();
      if (!withinSingleLimit(decision.spendingLimits, body.amount)) throw forbidden(BILLING_MSG.limitsExceeded);
      const customer = (await getBillingCustomers([decision.customerId])).get(decision.customerId);
      if (!customer) throw permissionRequired();

      const item = buildSchedule(
        {
          merchantId,
          ...(merchant.providerId ? { providerId: merchant.providerId } : {}),
          bankId: decision.bankId,
          customerId: decision.customerId,
          clientRef: customer.clientRef,
          decisionId: decision.id,
          agreementPhrase: decision.agreementPhrase,
          amount: body.amount,
          currency: body.currency,
          frequency: body.frequency,
          interval: body.interval ?? DEFAULT_INTERVAL,
          startDate: new Date(body.startDate).toISOString(),
          endDate: body.endDate ? new Date(body.endDate).toISOString() : null,
          maxBillings: body.maxBillings ?? null,
          description: body.description ?? null,
          metadata: body.metadata ?? null,
        },
        nowIso(),
      );
      const r = await saveNewSchedule(item, decision);
      if (r.ok) {
        const s = r.schedule;
        return ok(201, 'Recurring schedule created', {
          scheduleId: s.scheduleId,
          customerId: s.customerId,
          amount: toMajor(s.amount),
          frequency: s.frequency,
          status: 'active',
          nextBillingDate: s.nextBillingDate,
        });
      }
      if (r.reason === 'untrusted') throw forbidden(MSG.recurringTrustRequired);
      // The decision changed since it was checked: check again on a fresh read.
      if (attempt >= MAX_ATTEMPTS) throw conflict(MSG.decisionChanging);
    }
  },
);
