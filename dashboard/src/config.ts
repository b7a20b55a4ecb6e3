/**
 * The deployment's settings, read at start from `/dashboard/config.json` (written by the CDK
 * deployment on AWS and by the local server under `npm start`), so one build serves every stage.
 */
export interface DashboardConfig {
  stage: 'sandbox' | 'live';
  region: string;
  userPoolId: string;
  userPoolClientId: string;
  /** Cognito's endpoint; default `https://cognito-idp.<region>.amazonaws.com/` (locally the emulator). */
  cognitoEndpoint?: string;
}

export async function loadConfig(): Promise<DashboardConfig> {
  const r = await fetch(`${import.meta.env.BASE_URL}config.json`, { cache: 'no-store' });
  if (!r.ok) throw new Error(`The dashboard's configuration could not be loaded (${r.status})`);
  return (await r.json()) as DashboardConfig;
}

export const cognitoUrl = (c: DashboardConfig) => c.cognitoEndpoint ?? `https://cognito-idp.${c.region}.amazonaws.com/`;
