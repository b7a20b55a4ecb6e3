// API: release 3 sign-out/invitations
/**
 * Release 3's people routes (DESIGN 9.1, 9.7) typed here until the SDK's generated types
 * carry them: once `npm run sdk:generate` has them, delete this file and call `s.client`
 * directly (the shapes below are the contract's). Calls still go through `@idpay/sdk`'s client.
 */
import type { Client } from 'openapi-fetch';
import type { IdpayClient } from './api';

type Role = 'owner' | 'admin' | 'developer' | 'viewer';

interface Operation<Path, Body, Data, Query = never> {
  parameters: { query?: Query; header?: never; cookie?: never } & ([Path] extends [never] ? { path?: never } : { path: Path });
  requestBody: [Body] extends [never] ? never : { content: { 'application/json': Body } };
  responses: {
    200: {
      headers: Record<string, unknown>;
      content: { 'application/json': { statusCode: 200; success: true; message: string; data: Data } };
    };
    default: { headers: Record<string, unknown>; content: { 'application/json': { message: string } } };
  };
}

export interface PendingInvitation {
  invitationId: string;
  email: string;
  role: Role;
  invitedBy?: { userId?: string; email?: string | null } | null;
  createdAt: string;
  expiresAt: string;
}

/** What the invited person reads before accepting (`GET /v1/invitations/{token}`). */
export interface InvitationView {
  invitationId: string;
  participantName: string | null;
  participantType: 'bank' | 'merchant' | 'provider';
  role: Role;
  invitedBy: { email: string | null } | null;
  email: string;
  expiresAt: string;
  status: 'pending' | 'accepted' | 'expired' | 'revoked';
}

interface PendingPaths {
  '/v1/me/sign-out': { post: Operation<never, { refreshToken?: string }, Record<string, unknown>> };
  '/v1/invitations/{token}': { get: Omit<Operation<{ token: string }, never, InvitationView>, 'requestBody'> };
  '/v1/team/invitations': {
    get: Omit<Operation<never, never, { invitations: PendingInvitation[]; hasMore: boolean }, { limit?: number }>, 'requestBody'>;
  };
  '/v1/team/invitations/{invitationId}': {
    delete: Omit<Operation<{ invitationId: string }, never, Record<string, unknown>>, 'requestBody'>;
  };
}

/** The same client (credentials, participant, retries), typed for the pending routes. */
export const pending = (client: IdpayClient) => client as unknown as Client<PendingPaths, 'application/json'>;
