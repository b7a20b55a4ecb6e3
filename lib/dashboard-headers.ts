/**
 * The dashboard's security headers (DESIGN 8.4): one definition for CloudFront's
 * response headers policy (lib/) and the local server (local/dashboard.ts).
 */
export const HSTS_SECONDS = 2 * 365 * 24 * 3600;

/**
 * Content-Security-Policy of the app: everything from its own origin (the API is `/v1/*` on
 * the same domain), plus the Cognito endpoint it signs in with. No framing by anyone.
 */
export function dashboardCsp(cognitoOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self' ${cognitoOrigin}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** The headers every dashboard response carries (CloudFront adds them from its policy). */
export function dashboardHeaders(cognitoOrigin: string, https: boolean): Record<string, string> {
  return {
    'Content-Security-Policy': dashboardCsp(cognitoOrigin),
    ...(https ? { 'Strict-Transport-Security': `max-age=${HSTS_SECONDS}; includeSubDomains; preload` } : {}),
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'strict-origin-when-cross-origin',
  };
}
