import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, notFound } from '../../platform/errors';
import { customersByEmail } from '../../customers/store';
import { issueLookupPhrases } from '../../customers/phrase-store';
import { getParticipant } from '../../identity/participant-store';

const query = z.object({ email: z.string().trim().max(254).pipe(z.email()) });

/**
 * GET /v1/customer/banks?email= (DESIGN 6.5): every bank that onboarded a customer with
 * this email (case-insensitive), each with the customer's lookupPhrase for this merchant.
 * Nothing else about the customer is returned.
 */
export const handler = endpoint(
  { query, description: "Finds a customer's banks by email, each with a lookupPhrase issued to the calling merchant." },
  async ({ query, principal }) => {
    const customers = await customersByEmail(query.email);
    if (customers.length === 0) throw notFound(MSG.customerNotFound);
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
