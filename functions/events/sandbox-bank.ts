/**
 * The sandbox hook of the outbox (`commit(..., { eventDue: sandboxBankDue })`, passed by the
 * callers that emit `billing.intent` and `billing.request`): an event addressed to a SIMULATED
 * bank that the bank must answer (`billing.intent`, `billing.request`) puts its own event item
 * on the due index, kind `sandbox.bank`, SANDBOX_BANK_DELAY_SECONDS after its creation, in the
 * same transaction as the event. The tick then hands it to functions/sandbox/bank-worker.ts,
 * which answers in the bank's place. Nothing here ever fires in the live stage.
 */
import { config } from '../config';
import { dueAttributes } from '../platform/due';

export const SANDBOX_BANK_KIND = 'sandbox.bank';

/** Events a simulated bank answers (`dispute.updated`: it decides a dispute under review). */
export const SIMULATED_BANK_EVENTS: ReadonlySet<string> = new Set(['billing.intent', 'billing.request', 'dispute.updated']);

/**
 * Due attributes for the event item of `type` sent to a bank flagged `simulated`; empty
 * (nothing added) in the live stage, for other banks and for other types.
 */
export function sandboxBankDue(
  receiver: { simulated?: unknown } | undefined,
  type: string,
  eventId: string,
  createdMs: number,
): { duePk?: string; dueSk?: string } {
  if (receiver?.simulated !== true || !SIMULATED_BANK_EVENTS.has(type) || config.stage() !== 'sandbox') return {};
  return dueAttributes(SANDBOX_BANK_KIND, eventId, new Date(createdMs + sandboxBankDelaySeconds() * 1000));
}

/** `SANDBOX_BANK_DELAY_SECONDS` (default 2): how long the simulated bank takes to answer. */
export function sandboxBankDelaySeconds(): number {
  const raw = process.env.SANDBOX_BANK_DELAY_SECONDS;
  if (raw === undefined || raw === '') return 2;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error('Configuration SANDBOX_BANK_DELAY_SECONDS must be a number >= 0');
  return n;
}
