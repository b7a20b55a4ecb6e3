import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { Role } from '../identity/roles';
import type { ParticipantKind, Route } from '../routes';
import type { Actor } from '../identity/audit';
import type { Person } from '../identity/tokens';

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2 & { statusCode: number; headers: Record<string, string>; body: string };

export interface Principal {
  kind: ParticipantKind;
  /** The participant the call acts as (the merchant when a provider sends X-Entity-Id). */
  id: string;
  /** The API key's id ('operator' for the operator key). */
  keyId: string;
  /** Set when a provider acts for one of its merchants. */
  actingProviderId?: string;
  /** Who is calling, as the audit log names them (DESIGN 8.3). */
  actor: Actor;
  /** A signed-in person's role in the participant, or an API key's role (undefined for the operator). */
  role?: Role;
  /** The API version the participant is pinned at (stored on its key or membership); undefined for the operator. */
  apiVersion?: string;
}

export interface RateState {
  limit: number;
  remaining: number;
  /** Unix seconds when the window resets. */
  reset: number;
}

/** Per-request state shared by the middlewares and the handler. */
export interface RequestState {
  requestId: string;
  /** The API version the request is served at (the header, else the caller's pinned version, else the current one). */
  apiVersion?: string;
  startedAt: number;
  route: Route;
  params: Record<string, string>;
  principal?: Principal;
  /** The signed-in person behind an access token (also on `applicant` routes, which have no principal). */
  person?: Person;
  /** The person's access token as sent (for Cognito calls made on their behalf, e.g. GetUser). */
  accessToken?: string;
  /** What Idempotency-Key records are scoped to: the API key, or the person (and participant). */
  scope?: string;
  rate?: RateState;
  overLimit?: boolean;
  body?: unknown;
  query?: unknown;
  rawBody: string;
  /**
   * The Idempotency-Key record of this request: its key, a stored answer to replay; on a
   * deferred route (endpoint.ts) also the request's hash, and whether the handler claimed the
   * key (`claimed`) or wrote the completed record in its own transaction (`stored`), or an
   * existing record already decided the answer (`answered`).
   */
  idempotency?: { pk: string; replay?: HttpResponse; requestHash?: string; claimed?: boolean; stored?: boolean; answered?: boolean };
}

/** What a handler returns: the full JSON body (envelope included) and its status. */
export interface Reply {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}
