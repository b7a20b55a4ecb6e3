import type { Route } from '../functions/routes';

/**
 * Which route stack holds a route, derived from its path: one table, first match wins.
 * A new route lands in a stack without an edit here when its path starts like its
 * neighbours'; a path no entry matches fails the synth (and test/cdk/stack-split.test.ts)
 * with the route named.
 *
 * Sized so that each stack keeps room for 40 more routes under 300 resources (a route costs
 * 5: function, log group, route, integration, invoke permission; test/cdk/stack-split.test.ts).
 */
export const ROUTE_STACKS = [
  { name: 'admin', summary: 'operator and provider', prefixes: ['/v1/operator/', '/v1/provider/'] },
  {
    name: 'bank',
    summary: 'bank customers, decisions, answers',
    prefixes: ['/v1/bank/', '/v1/billing/intent-response', '/v1/billing/bank-response', '/v1/billing/refund-response'],
  },
  { name: 'recurring', summary: 'recurring schedules', prefixes: ['/v1/recurring', '/v1/billing/recurring/'] },
  {
    name: 'merchant',
    summary: 'discovery, agreements, billing',
    prefixes: ['/v1/customer/', '/v1/customer-decisions', '/v1/billing/', '/v1/balance/', '/v1/merchant/'],
  },
  {
    name: 'money',
    summary: 'transactions, refunds, settlements, exports, disputes, search, reports',
    prefixes: ['/v1/transaction-', '/v1/refunds/', '/v1/settlements', '/v1/exports', '/v1/disputes', '/v1/search', '/v1/reports/'],
  },
  { name: 'webhooks', summary: 'webhook endpoints, deliveries, events', prefixes: ['/v1/webhooks/', '/v1/events'] },
  {
    name: 'account',
    summary: 'people: onboarding, keys, team, audit log',
    prefixes: ['/v1/onboarding/', '/v1/keys', '/v1/team/', '/v1/invitations/', '/v1/audit-log', '/v1/me'],
  },
  { name: 'tools', summary: 'sandbox helpers and docs', prefixes: ['/v1/sandbox/', '/v1/openapi.json', '/docs'] },
] as const;

export type RouteStackName = (typeof ROUTE_STACKS)[number]['name'];

export function routeStackOf(route: Pick<Route, 'method' | 'path'>): RouteStackName {
  const hit = ROUTE_STACKS.find(({ prefixes }) => prefixes.some((p) => route.path === p || route.path.startsWith(p)));
  if (!hit) {
    throw new Error(`No route stack for ${route.method} ${route.path}: add its path prefix to ROUTE_STACKS in lib/route-stacks.ts`);
  }
  return hit.name;
}
