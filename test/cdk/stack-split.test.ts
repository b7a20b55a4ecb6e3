/**
 * Stack capacity: a stage is several stacks (lib/stack.ts), none near
 * CloudFormation's 500-resource limit, each route stack with room for 40 more routes under
 * 300 resources; every route of the table lands in exactly one route stack, derived from
 * its path (lib/route-stacks.ts); references between stacks only point down
 * (data <- core <- routes <- observability; data, core, waf <- edge), so no deploy order can
 * deadlock.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { ROUTES, routeKey, routesFor } from '../../functions/routes';
import { ROUTE_STACKS, routeStackOf } from '../../lib/route-stacks';
import {
  dataStackNameOf,
  edgeStackNameOf,
  firewallStackNameOf,
  observabilityStackNameOf,
  routeStackNameOf,
  stackNameOf,
} from '../../lib/stack';
import type { StageName } from '../../lib/settings';
import { buildStage, type BuiltStage } from '../support/cdk-stage';

/** Resources one more route adds to its stack: function, log group, route, integration, permission. */
const PER_ROUTE = [
  'AWS::Lambda::Function',
  'AWS::Logs::LogGroup',
  'AWS::ApiGatewayV2::Route',
  'AWS::ApiGatewayV2::Integration',
  'AWS::Lambda::Permission',
];
const STACK_BUDGET = 300;
const ROOM_FOR_ROUTES = 40;

const built = {} as Record<StageName, BuiltStage>;
beforeAll(() => {
  for (const stage of ['sandbox', 'live'] as const) built[stage] = buildStage(stage);
});

const count = (t: Record<string, any>) => Object.keys(t.Resources ?? {}).length;
/** Names of the stacks a template reads outputs of. */
const producersOf = (t: Record<string, any>) =>
  new Set([...JSON.stringify(t).matchAll(/"Fn::GetStackOutput":\{"StackName":"([^"]+)"/g)].map((m) => m[1]!));

describe('route stacks', () => {
  it('every route of the table maps to a route stack by its path', () => {
    for (const r of ROUTES)
      expect(
        ROUTE_STACKS.map((s) => s.name),
        routeKey(r),
      ).toContain(routeStackOf(r));
  });

  it('a path no prefix matches fails loudly, naming the route', () => {
    expect(() => routeStackOf({ method: 'GET', path: '/v2/nothing' })).toThrow('No route stack for GET /v2/nothing');
  });
});

describe.each(['sandbox', 'live'] as const)('%s stage', (stage) => {
  const b = () => built[stage];

  it('has the data, core, route, observability, waf and edge stacks', () => {
    const areas = [...new Set(routesFor(stage).map(routeStackOf))];
    expect(Object.keys(b().templates).sort()).toEqual(
      [
        dataStackNameOf(stage),
        stackNameOf(stage),
        observabilityStackNameOf(stage),
        firewallStackNameOf(stage),
        edgeStackNameOf(stage),
        ...areas.map((a) => routeStackNameOf(stage, a)),
      ].sort(),
    );
  });

  it('puts each route in exactly one stack: the one its path names', () => {
    const seen: string[] = [];
    for (const s of b().stage.routeStacks) {
      for (const { route } of s.routeFunctions.routes) {
        expect(routeStackNameOf(stage, routeStackOf(route)), routeKey(route)).toBe(s.stackName);
        seen.push(routeKey(route));
      }
      const apiRoutes = Object.values<any>(b().templates[s.stackName]!.Resources).filter((r) => r.Type === 'AWS::ApiGatewayV2::Route');
      expect(apiRoutes.length, s.stackName).toBe(s.routeFunctions.routes.length);
    }
    expect(seen.sort()).toEqual(routesFor(stage).map(routeKey).sort());
  });

  it(`keeps every stack under ${STACK_BUDGET} resources, route stacks with room for ${ROOM_FOR_ROUTES} more routes`, () => {
    const figures: string[] = [];
    for (const [name, t] of Object.entries(b().templates)) {
      expect(count(t), name).toBeLessThan(STACK_BUDGET);
      figures.push(`${name}: ${count(t)}`);
    }
    for (const s of b().stage.routeStacks) {
      const t = b().templates[s.stackName]!;
      const n = s.routeFunctions.routes.length;
      const perRoute = Object.values<any>(t.Resources).filter((r) => PER_ROUTE.includes(r.Type)).length / n;
      expect(perRoute, s.stackName).toBe(PER_ROUTE.length);
      expect(count(t) + ROOM_FOR_ROUTES * perRoute, s.stackName).toBeLessThan(STACK_BUDGET);
    }
    // The observability stack grows by one error alarm per route.
    const obs = b().templates[observabilityStackNameOf(stage)]!;
    expect(count(obs) + ROOM_FOR_ROUTES, 'observability').toBeLessThan(STACK_BUDGET);
    expect(figures.length).toBeGreaterThan(3);
  });

  it('refers only down the stack order: data <- core <- routes <- observability', () => {
    const data = dataStackNameOf(stage);
    const core = stackNameOf(stage);
    expect([...producersOf(b().templates[data]!)]).toEqual([]);
    expect([...producersOf(b().templates[core]!)]).toEqual([data]);
    for (const s of b().stage.routeStacks) {
      for (const p of producersOf(b().templates[s.stackName]!)) expect([data, core], s.stackName).toContain(p);
    }
    const routeStacks = b().stage.routeStacks.map((s) => s.stackName);
    for (const p of producersOf(b().templates[observabilityStackNameOf(stage)]!)) expect([data, core, ...routeStacks]).toContain(p);
    // The edge reads the API (core), the user pool (data) and the web ACL (waf, in us-east-1);
    // nothing reads the edge, and the waf stack reads nothing.
    const waf = firewallStackNameOf(stage);
    const edge = edgeStackNameOf(stage);
    expect([...producersOf(b().templates[waf]!)]).toEqual([]);
    expect([...producersOf(b().templates[edge]!)].sort()).toEqual([core, data, waf].sort());
    for (const [name, t] of Object.entries(b().templates)) expect([...producersOf(t)], name).not.toContain(edge);
  });

  it('keeps the outputs ops tooling reads on the core stack (Idpay-<stage>)', () => {
    const outputs = Object.keys(b().templates[stackNameOf(stage)]!.Outputs ?? {});
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'TableName',
        'QueueUrlWebhooks',
        'DlqUrlWebhooks',
        'QueueUrlWebhooksSlow',
        'DlqUrlWebhooksSlow',
        'QueueUrlJobs',
        'TickScheduleName',
        'UserPoolId',
      ]),
    );
  });
});
