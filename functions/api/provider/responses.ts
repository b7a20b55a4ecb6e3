/**
 * The 2xx answers of the provider/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { TRUST_LEVELS } from '../../domain/trust';
import { count, trustStatus, iso, merchantTrust, hasMore, total, listEnvelope } from '../shapes';
import type { Responses } from '../shapes';

/** DESIGN 10.5: the Trust status with the merchant's discovery limits in force. */
const merchantTrustWithLimits = merchantTrust
  .extend({
    discoveryDailyLimit: z
      .number()
      .int()
      .describe("Customer look-ups allowed per Lagos day (the provider's setting, else the deployment's default)"),
    discoveryMissLimit: z.number().int().describe('Look-ups that find no customer allowed per Lagos day'),
  })
  .meta({ id: 'MerchantTrustWithLimits' });

export const RESPONSES = {
  'create-merchants': {
    data: z.object({
      created: count,
      merchants: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          email: z.string(),
          providerId: z.string(),
          apiKey: z.string().describe('Shown only here'),
        }),
      ),
    }),
  },
  'device-permission': {
    /** the whole 2xx body */
    body: z.object({ statusCode: z.literal(200), allowed: z.boolean(), reason: z.string(), trustStatus }),
  },
  'get-merchant': {
    data: z.object({
      id: z.string(),
      ref: z.string().nullable(),
      name: z.string(),
      email: z.string(),
      phone: z.string().nullable(),
      code: z.string().nullable(),
      providerId: z.string().nullable(),
      userType: z.literal('merchant'),
      country: z.string().nullable(),
      state: z.string().nullable(),
      website: z.string().nullable(),
      description: z.string().nullable(),
      icon: z.string().nullable(),
      trusted: z.boolean(),
      trustLevel: z.enum(TRUST_LEVELS),
      address: z.string().nullable(),
      industry: z.string().nullable(),
      createdAt: iso,
      updatedAt: iso,
    }),
  },
  'get-trust': {
    data: merchantTrustWithLimits,
  },
  'list-merchants': {
    data: z.object({
      merchants: z.array(
        z.object({
          id: z.string(),
          name: z.string(),
          email: z.string(),
          trusted: z.boolean(),
          trustLevel: z.enum(TRUST_LEVELS),
          createdAt: iso,
        }),
      ),
      total,
      hasMore,
    }),
  },
  'list-trust': {
    data: z
      .array(merchantTrust.extend({ entityName: z.string() }))
      .describe('The page; `hasMore` and, on offset pages, `total` are beside it'),
    envelope: listEnvelope(),
  },
  'update-merchant': {
    data: z.object({ id: z.string(), name: z.string(), email: z.string() }),
  },
  'update-trust': {
    data: merchantTrustWithLimits,
  },
  'validate-trust': {
    data: z.object({
      entityId: z.string(),
      currentTrustLevel: z.enum(TRUST_LEVELS),
      requiredTrustLevel: z.enum(TRUST_LEVELS),
      trusted: z.boolean(),
      valid: z.boolean(),
    }),
  },
} satisfies Responses;
