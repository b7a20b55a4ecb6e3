/**
 * The 2xx answers of the operator/ handlers, one entry per handler file: `data` (the envelope's
 * `data`), `elements` (one element of a per-phrase array answer) or `body` (the whole body of an
 * answer without the envelope). Read by the OpenAPI generator (scripts/openapi/generate.ts), never by
 * the handlers: zod stays out of their bundles.
 */
import * as z from 'zod';
import { ACCOUNT_TYPES } from '../../ledger/store';
import { TRUST_LEVELS } from '../../domain/trust';
import { PARTICIPANT_STATUSES } from '../../domain/api-keys';
import { application, iso, money } from '../shapes';
import type { Responses } from '../shapes';

export const RESPONSES = {
  'approve-application': {
    data: application,
  },
  'create-key': {
    data: z.object({ keyId: z.string(), participantId: z.string(), apiKey: z.string().describe('Shown only here') }),
  },
  'create-participant': {
    data: z.object({
      id: z.string(),
      type: z.enum(['bank', 'merchant', 'provider']),
      name: z.string(),
      email: z.string(),
      providerId: z.string().optional(),
      simulated: z.literal(true).optional(),
      apiVersion: z
        .string()
        .describe(
          'The API version the participant is pinned at (the current one now): its requests without `Idpay-Version` are served at it',
        ),
      apiKey: z.string().describe('Shown only here'),
      invitation: z
        .object({ invitationId: z.string(), token: z.string().describe('Shown only here: the owner accepts with it') })
        .optional()
        .describe('With `ownerEmail`'),
    }),
  },
  'list-participants': {
    data: z.object({
      participants: z.array(
        z.object({
          id: z.string(),
          type: z.enum(['bank', 'merchant', 'provider']),
          name: z.string(),
          email: z.string(),
          status: z
            .enum(PARTICIPANT_STATUSES)
            .describe('`active` while at least one of its API keys works; `inactive` when none does (revoked, expired or never made)'),
          providerId: z.string().nullable().describe("A merchant's provider"),
          createdAt: iso,
        }),
      ),
      hasMore: z.boolean(),
    }),
  },
  'list-applications': {
    data: z.object({ applications: z.array(application), hasMore: z.boolean() }),
  },
  'reject-application': {
    data: application,
  },
  'revoke-key': {
    data: z.object({ keyId: z.string(), participantId: z.string(), revokedAt: iso }),
  },
  'trial-balance': {
    /** DESIGN 8.8 */
    data: z.object({
      accounts: z.array(
        z.object({
          account: z
            .string()
            .describe('bank:<bankId>, merchant_unsettled:<merchantId>, merchant_settled:<merchantId> or disputes:<merchantId>'),
          type: z
            .enum(ACCOUNT_TYPES)
            .nullable()
            .describe(
              "bank: owed by the customers' bank; merchant_unsettled / merchant_settled: the merchant's balance before / after settlement; disputes: held by the merchant's open disputes",
            ),
          participantId: z.string().nullable().describe('The bank or merchant the account is of'),
          participantName: z.string().nullable().describe("That participant's current name"),
          debit: money,
          credit: money,
        }),
      ),
      totalDebit: money,
      totalCredit: money,
      balanced: z.boolean(),
    }),
  },
  'update-provider': {
    data: z.object({ id: z.string(), maxTrustLevel: z.enum(TRUST_LEVELS) }),
  },
} satisfies Responses;
