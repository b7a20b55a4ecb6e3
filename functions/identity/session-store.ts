/**
 * Ending a session (identity/sessions.ts): the entry goes on the person's sessions item and on
 * every membership item of theirs, with expired entries dropped on the way.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { db } from '../platform/clients';
import { mapLimit } from '../platform/retry';
import { isConditionFailure, queryAll, table, type Key } from '../platform/table';
import { type EndedSessions, sessionsKey } from './sessions';

interface PersonItem {
  pk: string;
  sk: string;
  endedSessions?: EndedSessions;
  [extra: string]: unknown;
}

/**
 * Ends `session` of the person `sub` until `until` (epoch seconds). Idempotent. A membership
 * removed meanwhile is left alone (never recreated by the write).
 */
export async function endSession(sub: string, session: string, until: number): Promise<void> {
  const nowSec = Math.floor(Date.now() / 1000);
  const own = await queryAll<PersonItem>({
    KeyConditionExpression: 'pk = :pk',
    ExpressionAttributeValues: { ':pk': sessionsKey(sub).pk },
    ProjectionExpression: 'pk, sk, endedSessions',
  });
  const sessions = own.find((i) => i.sk === sessionsKey(sub).sk);
  const members = own.filter((i) => i.sk.startsWith('MEMBER#'));
  // The sessions item first: a membership made from now on copies it (people-store.ts).
  await markEnded(sessionsKey(sub), sessions, session, until, nowSec, false);
  await mapLimit(members, 4, (m) => markEnded({ pk: m.pk, sk: m.sk }, m, session, until, nowSec, true));
}

async function markEnded(key: Key, current: PersonItem | undefined, session: string, until: number, nowSec: number, mustExist: boolean) {
  const exists = mustExist ? { ConditionExpression: 'attribute_exists(pk)' } : {};
  try {
    if (!current?.endedSessions) {
      await db().send(
        new UpdateCommand({
          TableName: table(),
          Key: key,
          UpdateExpression: 'SET endedSessions = if_not_exists(endedSessions, :empty)',
          ExpressionAttributeValues: { ':empty': {} },
          ...exists,
        }),
      );
    }
    const expired = Object.entries(current?.endedSessions ?? {})
      .filter(([id, t]) => t < nowSec && id !== session)
      .map(([id]) => id);
    const names: Record<string, string> = { '#e': 'endedSessions', '#s': session };
    expired.forEach((id, i) => {
      names[`#x${i}`] = id;
    });
    await db().send(
      new UpdateCommand({
        TableName: table(),
        Key: key,
        UpdateExpression: `SET #e.#s = :until${expired.length ? ` REMOVE ${expired.map((_, i) => `#e.#x${i}`).join(', ')}` : ''}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ':until': until },
        ...exists,
      }),
    );
  } catch (e) {
    if (mustExist && isConditionFailure(e)) return; // the membership went meanwhile
    throw e;
  }
}
