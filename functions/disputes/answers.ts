/**
 * What the dispute routes answer for a refused change (DESIGN 9.4): one mapping for the
 * merchant's, the bank's and the sandbox's calls.
 */
import { badRequest, conflict, notFound } from '../platform/errors';
import type { ChangeResult, OpenResult } from './store';
import { DISPUTE_MSG } from './views';

/** The AppError of a refused change. */
export function changeRefusal(r: Extract<ChangeResult, { ok: false }>) {
  switch (r.reason) {
    case 'not_found':
      return notFound(DISPUTE_MSG.notFound);
    case 'closed':
      return conflict(DISPUTE_MSG.closed);
    case 'answered':
      return conflict(DISPUTE_MSG.answered);
    case 'busy':
      return conflict(DISPUTE_MSG.busy);
  }
}

/** The AppError of a refused opening. */
export function openRefusal(r: Extract<OpenResult, { ok: false }>) {
  switch (r.reason) {
    case 'not_found':
      return notFound(DISPUTE_MSG.transactionNotFound);
    case 'not_disputable':
      return conflict(DISPUTE_MSG.notDisputable);
    case 'too_late':
      return badRequest(DISPUTE_MSG.tooLate);
    case 'exceeds':
      return badRequest(DISPUTE_MSG.exceeds);
    case 'busy':
      return conflict(DISPUTE_MSG.busy);
  }
}
