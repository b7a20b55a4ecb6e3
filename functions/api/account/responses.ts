/**
 * The 2xx answers of the account/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { member, iso, applicationStatus, application, role } from '../shapes';
import type { Responses } from '../shapes';

const isoOrNull = iso.nullable();

const keyRole = z.enum(['admin', 'developer', 'viewer']).describe('The role the key acts with');
const creator = z
  .object({ userId: z.string(), email: z.string().nullable() })
  .nullable()
  .describe("The person who made the key (null: the operator's or a provider's key)");

const membership = z
  .object({
    participantId: z.string(),
    name: z.string().nullable().describe("The participant's name"),
    kind: z.enum(['bank', 'merchant', 'provider']),
    role,
    joinedAt: z.string(),
    apiVersion: z
      .string()
      .describe(
        'The API version the participant is pinned at: a request without `Idpay-Version` is served at it (the current version when the participant was created)',
      ),
  })
  .meta({ id: 'Membership' });

export const RESPONSES = {
  'accept-invitation': {
    data: member.extend({ participantId: z.string(), participantType: z.enum(['bank', 'merchant', 'provider']) }),
  },
  'audit-log': {
    data: z.object({
      entries: z.array(
        z.object({
          id: z.string(),
          at: iso,
          actor: z.object({ type: z.enum(['user', 'apiKey', 'operator']), id: z.string(), email: z.string().optional() }),
          action: z.string().describe('e.g. `api_key.created`, `member.role_changed:admin->viewer`, `webhook_endpoint.deleted`'),
          target: z.string().describe('The id of what changed'),
          requestId: z.string(),
          ip: z.string(),
        }),
      ),
      hasMore: z.boolean(),
    }),
  },
  'create-application': {
    data: z.object({
      applicationId: z.string(),
      status: applicationStatus,
      participantId: z.string().nullable().describe('The new participant once approved (sandbox: at once)'),
    }),
  },
  'create-key': {
    data: z.object({ keyId: z.string(), apiKey: z.string().describe('Shown only here'), expiresAt: iso.nullable(), role: keyRole }),
  },
  'get-application': {
    data: application,
  },
  invite: {
    data: z.object({
      invitationId: z.string(),
      token: z.string().describe('Shown only here (and e-mailed to the invitee as a dashboard link); the invitee accepts with it'),
      expiresAt: iso.describe('Until when it can be accepted (7 days)'),
    }),
  },
  'list-invitations': {
    data: z.object({
      invitations: z.array(
        z.object({
          invitationId: z.string(),
          email: z.string(),
          role,
          invitedBy: z.object({
            type: z.enum(['user', 'apiKey', 'operator']),
            userId: z.string().nullable(),
            email: z.string().nullable(),
          }),
          createdAt: iso,
          expiresAt: iso,
        }),
      ),
      hasMore: z.boolean(),
    }),
  },
  'revoke-invitation': {
    data: z.object({ invitationId: z.string(), revoked: z.literal(true) }),
  },
  'get-invitation': {
    data: z.object({
      invitationId: z.string(),
      participantName: z.string().nullable(),
      participantType: z.enum(['bank', 'merchant', 'provider']),
      role,
      invitedBy: z.object({ email: z.string().nullable() }),
      email: z.string().describe('The address that may accept it (verified)'),
      expiresAt: iso,
      status: z.enum(['pending', 'accepted', 'revoked', 'expired']),
    }),
  },
  'sign-out': {
    data: z.object({
      signedOut: z.literal(true),
      refreshTokenRevoked: z.boolean().describe('Whether Cognito revoked the refresh token sent (false: none sent, or refused)'),
    }),
  },
  'list-keys': {
    data: z.object({
      keys: z.array(
        z.object({
          keyId: z.string(),
          name: z.string().nullable(),
          prefix: z.string().nullable().describe('The first characters of the key, to recognise it (e.g. `sk_live_Ab3x`)'),
          role: keyRole,
          createdBy: creator,
          createdAt: iso,
          lastUsedAt: isoOrNull,
          expiresAt: isoOrNull,
          revokedAt: isoOrNull,
        }),
      ),
      hasMore: z.boolean(),
    }),
  },
  'list-members': {
    data: z.object({ members: z.array(member), hasMore: z.boolean() }),
  },
  me: {
    data: z.object({
      userId: z.string().describe("The person's Cognito user id"),
      email: z.string().nullable(),
      memberships: z.array(membership),
    }),
  },
  'remove-member': {
    data: z.object({
      userId: z.string(),
      removed: z.literal(true),
      keysCreated: z
        .array(z.string())
        .describe('The ids of the keys this member made that still work: removal does not revoke them (DELETE /v1/keys/{keyId} does)'),
    }),
  },
  'revoke-key': {
    data: z.object({ keyId: z.string(), revokedAt: iso }),
  },
  'update-member': {
    data: member,
  },
} satisfies Responses;
