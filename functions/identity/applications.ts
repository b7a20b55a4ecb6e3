/** The operator's decision on an application (DESIGN 8.3), with the refusals' messages. */
import { MSG, conflict, notFound } from '../platform/errors';
import type { AuditContext } from './audit';
import { decideApplication } from './people-store';
import { toApiApplication } from './views';

export async function decide(id: string, decision: { approve: true } | { approve: false; reason: string }, audit: AuditContext) {
  const done = await decideApplication(id, decision, audit);
  if (!done.ok) {
    if (done.reason === 'not_found') throw notFound(MSG.applicationNotFound);
    throw conflict(done.reason === 'email_taken' ? MSG.merchantEmailExists : MSG.applicationDecided);
  }
  return toApiApplication(done.app);
}
