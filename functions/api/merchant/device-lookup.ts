import * as z from 'zod';
import { deviceLookupPermission, trustOf } from '../../domain/trust';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, forbidden, notFound } from '../../platform/errors';
import { getDeviceLink } from '../../customers/store';
import { issueLookupPhrase } from '../../customers/phrase-store';
import { discover } from '../../customers/discovery-store';
import { getParticipant } from '../../identity/participant-store';

/** A device identifier: 1 to 200 characters, no control characters, compared exactly. */
export const deviceIdSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters');

const body = z.strictObject({ deviceId: deviceIdSchema });

/**
 * POST /v1/customer/device/lookup (DESIGN 6.5): the lookupPhrase of the customer linked to
 * the device, issued to this merchant. The merchant's trust is read on every call and
 * checked BEFORE the device is looked up, so a merchant without permission learns nothing.
 */
export const handler = endpoint(
  {
    body,
    description:
      "Finds a customer by device. Needs deviceLookupEnabled, or trusted with enhanced or premium trust. Counted against the merchant's discovery budget per Lagos day (429 `Discovery limit reached` over it).",
  },
  async ({ body, principal, audit }) => {
    const merchant = await getParticipant(principal.id);
    const trust =
      merchant &&
      trustOf({ trusted: merchant.trusted, trustLevel: merchant.trustLevel, deviceLookupEnabled: merchant.deviceLookupEnabled });
    if (!trust || !deviceLookupPermission(trust).allowed) {
      throw forbidden(MSG.deviceLookupForbidden);
    }
    // Counted only once permitted (DESIGN 10.5): an unpermitted merchant learns nothing anyway.
    const link = await discover(merchant!, audit, () => getDeviceLink(body.deviceId));
    if (!link) throw notFound(MSG.customerNotFound);
    const lookupPhrase = await issueLookupPhrase(principal.id, { id: link.customerId, bankId: link.bankId });
    return ok(200, 'Customer found', { lookupPhrase });
  },
);
