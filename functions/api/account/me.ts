import { endpoint, ok } from '../../http/endpoint';
import { membershipsOf } from '../../identity/members';
import { participantKey } from '../../identity/participant-store';
import { batchGetByKey, itemKeyOf } from '../../platform/table';
import { pinnedVersion } from '../../platform/api-request';

/** The most memberships a person's own read lists (a person belongs to a handful of participants). */
export const MAX_MEMBERSHIPS = 50;

/**
 * GET /v1/me (a signed-in person, member of anything or nothing yet): who the token is, and
 * the participants they may act for with their role — what a dashboard needs to choose an
 * `X-Participant-Id` and show the pages of that participant's kind.
 */
export const handler = endpoint(
  { description: 'The signed-in person and the participants they belong to, with their role in each.' },
  async ({ person }) => {
    const mine = await membershipsOf(person!.sub, MAX_MEMBERSHIPS);
    // One BatchGetItem for the names (not a GetItem per membership), names only.
    const names = await batchGetByKey<{ pk: string; sk: string; name?: string; apiVersion?: string }>(
      mine.map((m) => participantKey(m.participantId)),
      ['name', 'apiVersion'],
    );
    const memberships = mine.map((m) => ({
      participantId: m.participantId,
      name: names.get(itemKeyOf(participantKey(m.participantId)))?.name ?? null,
      kind: m.participantKind,
      role: m.role,
      joinedAt: m.joinedAt,
      apiVersion: pinnedVersion(names.get(itemKeyOf(participantKey(m.participantId)))),
    }));
    return ok(200, 'Profile retrieved', {
      userId: person!.sub,
      email: mine.find((m) => m.email)?.email ?? person!.email ?? null,
      memberships,
    });
  },
);
