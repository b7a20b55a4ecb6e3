/**
 * The audit log (DESIGN 8.3): who changed what, per participant. An entry is a Put item that
 * the change's own store adds to the SAME transaction as the change (keys, team, webhook
 * endpoints, applications, trust), so there is never a change without its entry or an entry
 * without its change. This module only builds items and reads them; it writes nothing.
 *
 * Item: pk `AUDIT#<participantId>`, sk = the entry id, which is time-ordered
 * (`aud_<ms, base36>...`, domain/ids.ts), so a page newest first is one Query from
 * `startingAfter` with no lookup, and its cost does not grow with history.
 */
import { newId } from '../domain/ids';
import { nowIso, queryPage, table, type Item, type TransactItem } from '../platform/table';

export interface Actor {
  type: 'user' | 'apiKey' | 'operator';
  id: string;
  email?: string;
}

/** What a request knows of itself for the log. */
export interface AuditContext {
  actor: Actor;
  requestId: string;
  ip: string;
}

export interface AuditEntry {
  id: string;
  at: string;
  actor: Actor;
  action: string;
  target: string;
  requestId: string;
  ip: string;
}

export const auditPk = (participantId: string) => `AUDIT#${participantId}`;

/** One entry's item. */
export function auditItem(participantId: string, ctx: AuditContext, action: string, target: string): Item {
  const id = newId('aud');
  const entry: AuditEntry & Item = { id, at: nowIso(), actor: ctx.actor, action, target, requestId: ctx.requestId, ip: ctx.ip };
  return { pk: auditPk(participantId), sk: id, ...entry };
}

/** The Put of one entry, for the transaction that makes the change. */
export function auditPut(participantId: string, ctx: AuditContext, action: string, target: string): TransactItem {
  return { Put: { TableName: table(), Item: auditItem(participantId, ctx, action, target) } };
}

/** A page of a participant's entries, newest first, after the entry `startingAfter` names. */
export async function listAudit(
  participantId: string,
  limit: number,
  startingAfter?: string,
): Promise<{ entries: AuditEntry[]; hasMore: boolean }> {
  const { items } = await queryPage({
    KeyConditionExpression: startingAfter ? 'pk = :pk AND sk < :after' : 'pk = :pk',
    ExpressionAttributeValues: { ':pk': auditPk(participantId), ...(startingAfter ? { ':after': startingAfter } : {}) },
    ScanIndexForward: false,
    Limit: limit + 1,
  });
  const entries = items.slice(0, limit).map((i) => ({
    id: i.id as string,
    at: i.at as string,
    actor: i.actor as Actor,
    action: i.action as string,
    target: i.target as string,
    requestId: i.requestId as string,
    ip: i.ip as string,
  }));
  return { entries, hasMore: items.length > limit };
}
