/** How an email is compared and indexed: trimmed, lower case. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
