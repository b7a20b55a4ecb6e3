import * as z from 'zod';
import { KEY_ROLES, ROLES } from '../../identity/roles';
import { cursorPaging, safeText } from '../../http/schemas';

const country = z.string().regex(/^[A-Z]{2}$/, 'must be an ISO 3166-1 alpha-2 code');

/** POST /v1/onboarding/applications (DESIGN 8.3). */
export const applicationSchema = z.strictObject({
  type: z.enum(['merchant', 'provider']),
  businessName: safeText(200),
  email: z.email().max(254),
  country,
  registrationNumber: safeText(64),
  website: z
    .url({ protocol: /^https?$/ })
    .max(2048)
    .optional(),
  address: z.strictObject({ line1: safeText(200), city: safeText(100), country }),
});

export const createKeySchema = z.strictObject({
  name: safeText(100).optional(),
  expiresInDays: z.number().int().min(1).max(3650).optional(),
  role: z
    .enum(KEY_ROLES as [string, ...string[]] as ['admin', 'developer', 'viewer'])
    .optional()
    .describe("The role the key acts with; default the creator's own (an owner's key is admin). Not above the creator's."),
});

export const roleSchema = z.enum(ROLES as [string, ...string[]] as ['owner', 'admin', 'developer', 'viewer']);

export const inviteSchema = z.strictObject({ email: z.email().max(254), role: roleSchema });
export const updateMemberSchema = z.strictObject({ role: roleSchema });

export const pageQuery = z.strictObject(cursorPaging);

/** POST /v1/me/sign-out: the session's refresh token (the dashboard holds it), to revoke at Cognito. */
export const signOutSchema = z.strictObject({ refreshToken: z.string().min(1).max(4096).optional() });
