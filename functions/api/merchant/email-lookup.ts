import * as z from 'zod';
import { config } from '../../config';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { customersByEmail } from '../../customers/store';
import { discover } from '../../customers/discovery-store';
import { issueLookupPhrases } from '../../customers/phrase-store';
import { getParticipant } from '../../identity/participant-store';
import { DISCOVERY_LIMIT_EMAIL } from '../../sandbox/magic';

const query = z.object({ email: z.string().trim().max(254).pipe(z.email()) });

/**
 * GET /v1/customer/banks?email= (DESIGN 6.5): every bank that onboarded a customer with
 * this email (case-insensitive), each with the customer's lookupPhrase for this merchant.
 * Nothing else about the customer is returned. Counted against the merchant's discovery
 * budget (DESIGN 10.5; customers/discovery-store.ts); in the sandbox `discovery.limited@...`
 * answers as a merchant over its budget.
 */
export const handler = endpoint(
  {
    query,
    description:
      "Finds a customer's banks by email, each with a lookupPhrase issued to the calling merchant. Counted against the merchant's discovery budget per Lagos day (429 `Discovery limit reached` over it).",
  },
  async ({ query, principal, audit }) => {
    const merchant = (await getParticipant(principal.id)) ?? { id: principal.id };
    const magic = config.stage() === 'sandbox' && query.email.toLowerCase() === DISCOVERY_LIMIT_EMAIL;
    const customers = await discover(
      merchant,
      audit,
      async () => {
        const found = await customersByEmail(query.email);
        return found.length ? found : undefined;
      },
      magic,
    );
    if (!customers) throw notFound(MSG.customerNotFound);
    const bankIds = [...new Set(customers.map((c) => c.bankId))];
    const banks = new Map(
      (await Promise.all(bankIds.map((id) => getParticipant(id)))).filter((b) => b !== undefined).map((b) => [b.id, b]),
    );
    const phrases = await issueLookupPhrases(principal.id, customers);
    return ok(200, 'Customer banks found', {
      banks: customers.map((c) => ({ bankId: c.bankId, bankName: banks.get(c.bankId)?.name ?? null, lookupPhrase: phrases.get(c.id)! })),
    });
  },
);
