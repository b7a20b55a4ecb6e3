/**
 * Text hygiene (DESIGN 8.1), the rule: characters no human text field may carry. C0
 * (U+0000-U+001F, U+007F), C1 (U+0080-U+009F) and the bidi controls U+202A-U+202E,
 * U+2066-U+2069, which could spoof what a customer or an operator reads (a merchant name in
 * a bank's notification). The request schemas apply it through `safeText` (http/schemas.ts).
 */
export const UNSAFE_TEXT = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
export const UNSAFE_TEXT_MESSAGE = 'must not contain control characters';
