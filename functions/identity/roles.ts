/**
 * People's roles in a participant and what each may do (DESIGN 8.3): one place for the
 * pipeline (http/auth.ts), the OpenAPI document and the dashboard. A route says which class
 * of action it is (`Route.permission` in the route table); this table says which roles that
 * class allows, per stage.
 */
import type { Permission, Route } from '../routes';

/** A person's role in a participant (DESIGN 8.3). */
export type Role = 'owner' | 'admin' | 'developer' | 'viewer';
export const ROLES: readonly Role[] = ['owner', 'admin', 'developer', 'viewer'];

/**
 * Classes of action (`Permission`), each allowed to a fixed set of roles (`rolesFor`):
 * - `read`: every role (viewer: GET only)
 * - `config`: keys, webhooks, events and other non-money writes: owner, admin, developer
 * - `money`: writes that move money or change customers' data: owner, admin; developer in sandbox only
 * - `team`: team, invitations, audit log: owner, admin
 */
const PERMISSION_ROLES: Record<Permission, { sandbox: readonly Role[]; live: readonly Role[] }> = {
  read: { sandbox: ROLES, live: ROLES },
  config: { sandbox: ['owner', 'admin', 'developer'], live: ['owner', 'admin', 'developer'] },
  money: { sandbox: ['owner', 'admin', 'developer'], live: ['owner', 'admin'] },
  team: { sandbox: ['owner', 'admin'], live: ['owner', 'admin'] },
};

export const permissionOf = (r: Pick<Route, 'method' | 'permission'>): Permission =>
  r.permission ?? (r.method === 'GET' ? 'read' : 'money');

/** The roles that may call `route` in `stage` (one place: the pipeline, the OpenAPI document and the tests). */
export function rolesFor(route: Pick<Route, 'method' | 'permission'>, stage: 'sandbox' | 'live'): readonly Role[] {
  return PERMISSION_ROLES[permissionOf(route)][stage];
}

/** The role an API key acts with (DESIGN 9.1): a person's role, ownership excepted. */
export type KeyRole = Exclude<Role, 'owner'>;
export const KEY_ROLES: readonly KeyRole[] = ['admin', 'developer', 'viewer'];

/** Higher is more: owner 3, admin 2, developer 1, viewer 0. */
const RANK: Record<Role, number> = { owner: 3, admin: 2, developer: 1, viewer: 0 };

/** Whether `role` is above `than` (a creator may give a key no role above their own). */
export const outranks = (role: Role, than: Role): boolean => RANK[role] > RANK[than];

/** A key's role when its creator names none: the creator's own, an owner's key being `admin`. */
export const defaultKeyRole = (creator: Role): KeyRole => (creator === 'owner' ? 'admin' : creator);

/** A stored key's role: keys made before roles existed, and the operator's, act as `admin`. */
export const keyRoleOf = (item: { role?: unknown }): KeyRole =>
  KEY_ROLES.includes(item.role as KeyRole) ? (item.role as KeyRole) : 'admin';
