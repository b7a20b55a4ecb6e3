/** Request schemas and reply shapes shared by the provider endpoints (merchants and trust). */
import * as z from 'zod';
import { MSG, type ErrorMessage } from '../../platform/errors';
import { boolString, offsetPaging, safeText } from '../../http/schemas';
import { trustOf, type TrustLevel } from '../../domain/trust';
import { DISCOVERY_LIMIT_MAX, DISCOVERY_LIMIT_MIN, type DiscoveryLimits } from '../../domain/discovery';
import { MAX_MERCHANTS_PER_BATCH, type MerchantRecord, type MerchantSummary } from '../../merchants/store';
import { bankAccountSchema, trustLevelSchema } from '../operator/schemas';

export { trustLevelSchema };

/** A merchant id in a query or body. */
export const entityId = z.string().trim().min(1).max(100);

const url = z.httpUrl().max(2048);
const text = (max: number) => safeText(max);

/** Optional profile fields of a merchant (create and update). */
const profile = {
  phone: safeText(32, 3),
  address: text(500),
  website: url,
  description: text(2000),
  icon: url,
  country: z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code'),
  state: text(100),
};

/**
 * One item of POST /v1/provider/merchants. `industry` (seen in migration samples) is
 * accepted and stored as a profile field; any other unknown field is rejected
 * (docs/decisions/merchant-management.md).
 */
export const newMerchantSchema = z.strictObject({
  name: text(200),
  email: z.email().max(254),
  phone: profile.phone.optional(),
  address: profile.address.optional(),
  website: profile.website.optional(),
  description: profile.description.optional(),
  icon: profile.icon.optional(),
  country: profile.country.optional(),
  state: profile.state.optional(),
  industry: text(100).optional(),
  bankAccount: bankAccountSchema.optional(),
});

export const createMerchantsSchema = z.strictObject({
  merchants: z
    .array(newMerchantSchema)
    .min(1, 'must hold at least one merchant')
    .max(MAX_MERCHANTS_PER_BATCH, `at most ${MAX_MERCHANTS_PER_BATCH} merchants per request`),
});

/** PATCH /v1/provider/merchant: null removes an optional field. */
export const updateMerchantSchema = z
  .strictObject({
    entityId,
    name: text(200).optional(),
    email: z.email().max(254).optional(),
    phone: profile.phone.nullable().optional(),
    address: profile.address.nullable().optional(),
    website: profile.website.nullable().optional(),
    description: profile.description.nullable().optional(),
    icon: profile.icon.nullable().optional(),
    country: profile.country.nullable().optional(),
    state: profile.state.nullable().optional(),
  })
  .refine((b) => Object.keys(b).some((k) => k !== 'entityId' && b[k as keyof typeof b] !== undefined), {
    message: 'at least one field to change is required',
  });

export const entityQuery = z.object({ entityId });

const idsParam = z
  .string()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string().max(100)).min(1, 'must name at least one id').max(100, 'at most 100 ids'));

export const listMerchantsQuery = z.object({ ids: idsParam.optional(), trusted: boolString.optional(), ...offsetPaging });

export const listTrustQuery = z.object({
  trusted: boolString.optional(),
  trustLevel: trustLevelSchema.optional(),
  deviceLookupEnabled: boolString.optional(),
  ...offsetPaging,
});

/** The spec's message when a trust level field fails, else `fallback`. */
export const trustLevelMessage =
  (field: string, fallback: ErrorMessage<400>) =>
  (err: z.ZodError): ErrorMessage<400> =>
    err.issues.some((i) => i.path[0] === field) ? MSG.invalidTrustLevel : fallback;

/** A discovery limit a provider sets (DESIGN 10.5); null returns to the deployment's default. */
const discoveryLimit = z.number().int().min(DISCOVERY_LIMIT_MIN).max(DISCOVERY_LIMIT_MAX).nullable().optional();

export const updateTrustSchema = z.strictObject({
  entityId,
  trusted: z.boolean(),
  trustLevel: trustLevelSchema.optional(),
  deviceLookupEnabled: z.boolean().optional(),
  discoveryDailyLimit: discoveryLimit,
  discoveryMissLimit: discoveryLimit,
});

export const validateTrustSchema = z.strictObject({ entityId, requiredTrustLevel: trustLevelSchema });

// ---------------------------------------------------------------------------------------
// Reply shapes: explicit allow-lists, so keys, bank account numbers and internal
// attributes (pk/sk/gsi*, trustVersion) never leave the service.

const orNull = <T>(v: T | undefined): T | null => (v === undefined ? null : v);

/** The spec's Merchant (plus address, industry, createdAt, updatedAt). */
export function merchantView(m: MerchantRecord) {
  const t = trustOf(m);
  return {
    id: m.id,
    ref: orNull(m.ref),
    name: m.name,
    email: m.email,
    phone: orNull(m.phone),
    code: orNull(m.code),
    providerId: orNull(m.providerId),
    userType: 'merchant' as const,
    country: orNull(m.country),
    state: orNull(m.state),
    website: orNull(m.website),
    description: orNull(m.description),
    icon: orNull(m.icon),
    trusted: t.trusted,
    trustLevel: t.trustLevel,
    address: orNull(m.address),
    industry: orNull(m.industry),
    createdAt: m.createdAt,
    updatedAt: m.updatedAt,
  };
}

export function merchantListItem(m: MerchantSummary) {
  const t = trustOf(m);
  return { id: m.id, name: m.name, email: m.email, trusted: t.trusted, trustLevel: t.trustLevel, createdAt: m.createdAt };
}

/** The spec's Trust status (lastVerified null until the first trust change). */
export function trustStatus(m: {
  id: string;
  trusted?: unknown;
  trustLevel?: unknown;
  deviceLookupEnabled?: unknown;
  lastVerified?: string;
}) {
  const t = trustOf(m);
  return {
    entityId: m.id,
    trusted: t.trusted,
    trustLevel: t.trustLevel as TrustLevel,
    deviceLookupEnabled: t.deviceLookupEnabled,
    lastVerified: m.lastVerified ?? null,
  };
}

/** GET and PATCH trust (DESIGN 10.5): the Trust status and the merchant's discovery limits in force. */
export const trustWithLimits = (m: Parameters<typeof trustStatus>[0], limits: DiscoveryLimits) => ({
  ...trustStatus(m),
  discoveryDailyLimit: limits.daily,
  discoveryMissLimit: limits.misses,
});
