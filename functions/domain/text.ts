/**
 * Text hygiene (DESIGN 8.1), the rule: characters no human text field may carry. C0
 * (U+0000-U+001F, U+007F), C1 (U+0080-U+009F) and the bidi controls U+202A-U+202E,
 * U+2066-U+2069, which could spoof what a customer or an operator reads (a merchant name in
 * a bank's notification). The request schemas apply it through `safeText` (http/schemas.ts).
 */
import type * as z from 'zod';

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
export const UNSAFE_TEXT_MESSAGE = 'must not contain control characters';

/**
 * A live credential pasted into a text field (a key or webhook secret in a merchant name, a
 * description or metadata) would be stored in clear and shown to other participants, and
 * DESIGN 8.1 says no item attribute anywhere matches these shapes: such text is refused,
 * as GitHub's push protection refuses a commit holding a token.
 */
export const SECRET_IN_TEXT = /sk_(?:sandbox|live)_[A-Za-z0-9]{20,}|whsec_[A-Za-z0-9]{20,}/;
export const SECRET_IN_TEXT_MESSAGE = 'must not contain an API key or webhook secret';

/** A zod `superRefine` applying `textProblem` (request schemas and the customer item). */
export function checkText(value: string, ctx: z.RefinementCtx): void {
  const problem = textProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: problem });
}

/** Why a text value may not be stored (first rule broken), or undefined when it may. */
export function textProblem(value: string): string | undefined {
  if (UNSAFE_TEXT.test(value)) return UNSAFE_TEXT_MESSAGE;
  if (SECRET_IN_TEXT.test(value)) return SECRET_IN_TEXT_MESSAGE;
  return undefined;
}
