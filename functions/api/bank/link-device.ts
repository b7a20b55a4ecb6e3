import * as z from 'zod';
import { endpoint, ok } from '../../http/endpoint';
import { MSG, conflict, notFound } from '../../platform/errors';
import { getBankCustomer, linkDevice } from '../../customers/store';
import { deviceIdSchema } from '../merchant/device-lookup';

const body = z.strictObject({
  customerId: z.string().trim().min(1).max(100),
  /** The bank's verification phrase for this device (stored as a keyed hash, never returned). */
  phrase: z
    .string()
    .min(1)
    .max(500)
    .refine((s) => s.trim() !== '', 'must not be blank'),
  deviceId: deviceIdSchema,
});

/**
 * POST /v1/bank/customer/device/link: links a device to one of the bank's customers, so
 * device lookup finds that customer. Another bank's or an unknown customer: 404. A device
 * linked to a customer of another bank: 409; of the same bank: moved; of this customer:
 * idempotent (see customers/store.ts linkDevice and docs/decisions/customer-discovery.md).
 */
export const handler = endpoint(
  { body, description: "Links a customer's device. The phrase is the bank's verification phrase for the device, stored hashed." },
  async ({ body, principal }) => {
    const customer = await getBankCustomer(principal.id, body.customerId);
    if (!customer) throw notFound(MSG.customerNotFound);
    const result = await linkDevice(customer, body.deviceId, body.phrase);
    if (!result.ok) throw conflict(MSG.deviceLinkedElsewhere);
    return ok(200, 'Device linked', result.link);
  },
);
