/**
 * Array replies of the per-phrase operations (billing intent, bill, pay; DESIGN 6.5 and
 * 6.9): the body is the ARRAY of elements, one per input phrase, each with its own
 * `statusCode`; the HTTP status is the elements' common `statusCode`, or 207 when they
 * differ. The one place this rule is written.
 */
import { AppError, type ErrorMessage } from '../platform/errors';
import type { Reply } from './types';

export interface ArrayElement {
  statusCode: number;
  success: boolean;
  message: string;
  [field: string]: unknown;
}

export const MULTI_STATUS = 207;

/** What a failed element says, as an error body does: `statusCode`, `success: false`, `message`, `code`, `type`, `docUrl`. */
export function errorFields(e: AppError): ArrayElement {
  return {
    statusCode: e.statusCode,
    success: false,
    message: e.message,
    code: e.code,
    type: e.type,
    docUrl: e.docUrl,
    ...(e.param ? { param: e.param } : {}),
  };
}

/** A failed element of this status and message (its code and type from the error table). */
export const failedElement = (statusCode: number, message: ErrorMessage): ArrayElement => errorFields(new AppError(statusCode, message));

/** The HTTP status of a list of elements: their common statusCode, or 207 when they differ. */
export function arrayStatus(elements: readonly Pick<ArrayElement, 'statusCode'>[]): number {
  const first = elements[0]?.statusCode;
  if (first === undefined) throw new Error('arrayReply needs at least one element');
  return elements.every((e) => e.statusCode === first) ? first : MULTI_STATUS;
}

export function arrayReply(elements: readonly ArrayElement[]): Reply {
  return { status: arrayStatus(elements), body: elements };
}
