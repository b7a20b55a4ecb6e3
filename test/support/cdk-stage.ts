/**
 * The stacks of one stage, synthesized for template tests (bundling skipped: seconds, not
 * minutes), and one merged view of them: every stack's resources and outputs in one
 * template, with each cross-stack reference (`Fn::GetStackOutput`, `Fn::ImportValue`)
 * replaced by the value the producing stack outputs. Assertions can then say
 * "TABLE_NAME is the table's Ref" whichever stack the function lives in.
 *
 * Logical ids are unique per stack only: an id two stacks both use (e.g. the imported-role
 * policy of each route stack) is kept as is for the first stack and suffixed `<id>@<stack>`
 * for the others; `idOf(construct)` answers the id in the merged view.
 */
import { readFileSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import type { IConstruct } from 'constructs';
import { IdpayStage, type IdpayStackProps } from '../../lib/stack';
import type { StageName } from '../../lib/settings';

const CDK_JSON_CONTEXT = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8')).context as Record<string, unknown>;

type Json = Record<string, any>;

export interface BuiltStage {
  stageName: StageName;
  app: App;
  stage: IdpayStage;
  /** Each stack's own template, by stack name. */
  templates: Record<string, Json>;
  /** All stacks in one template (see above). */
  template: Template;
  resources: Record<string, Json>;
  outputs: Record<string, Json>;
  /** Logical id of a construct's CloudFormation resource in the merged view. */
  idOf(c: IConstruct): string;
  /** The stack (by name) a merged logical id came from. */
  stackOfId(id: string): string;
}

export interface BuildOptions extends Partial<IdpayStackProps> {
  /** Run cdk-nag (AwsSolutions) as `cdk synth` does. */
  nag?: boolean;
  context?: Record<string, unknown>;
}

export function buildStage(stageName: StageName, opts: BuildOptions = {}): BuiltStage {
  const { nag, context, ...props } = opts;
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], ...context } });
  const stage = new IdpayStage(app, { stage: stageName, operatorKeyHash: 'a'.repeat(64), ...props });
  if (nag) Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const templates: Record<string, Json> = {};
  for (const s of stage.stacks) templates[s.stackName] = assembly.getStackByName(s.stackName).template as Json;

  // Rename ids that an earlier stack already uses.
  const renames = new Map<string, Map<string, string>>();
  const owner = new Map<string, string>();
  for (const [name, t] of Object.entries(templates)) {
    const r = new Map<string, string>();
    for (const id of [...Object.keys(t.Resources ?? {}), ...Object.keys(t.Outputs ?? {})]) {
      const merged = owner.has(id) ? `${id}@${name}` : id;
      owner.set(merged, name);
      if (merged !== id) r.set(id, merged);
    }
    renames.set(name, r);
  }
  const rename = (stack: string, id: string) => renames.get(stack)!.get(id) ?? id;

  const rewrite = (stack: string, v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((x) => rewrite(stack, x));
    if (v === null || typeof v !== 'object') return v;
    const o = v as Json;
    const keys = Object.keys(o);
    if (keys.length === 1) {
      const [k] = keys as [string];
      if (k === 'Ref' && typeof o.Ref === 'string') return { Ref: rename(stack, o.Ref) };
      if (k === 'Fn::GetAtt') {
        const [lid, attr] = Array.isArray(o[k]) ? o[k] : String(o[k]).split(/\.(.*)/s);
        return { 'Fn::GetAtt': [rename(stack, String(lid)), attr] };
      }
      if (k === 'Fn::GetStackOutput') {
        const { StackName, OutputName } = o[k];
        const producer = templates[StackName];
        const output = producer?.Outputs?.[OutputName];
        if (!output) throw new Error(`no output ${OutputName} in stack ${StackName}`);
        return rewrite(StackName, output.Value);
      }
      if (k === 'Fn::ImportValue') {
        for (const [name, t] of Object.entries(templates)) {
          for (const out of Object.values<Json>(t.Outputs ?? {})) {
            if (JSON.stringify(out.Export?.Name) === JSON.stringify(o[k])) return rewrite(name, out.Value);
          }
        }
        throw new Error(`no export ${JSON.stringify(o[k])}`);
      }
    }
    return Object.fromEntries(keys.map((key) => [key, rewrite(stack, o[key])]));
  };

  const resources: Record<string, Json> = {};
  const outputs: Record<string, Json> = {};
  for (const [name, t] of Object.entries(templates)) {
    for (const [id, r] of Object.entries<Json>(t.Resources ?? {})) {
      resources[rename(name, id)] = { ...(rewrite(name, r) as Json), DependsOn: r.DependsOn };
      if (r.DependsOn === undefined) delete resources[rename(name, id)]!.DependsOn;
    }
    for (const [id, o] of Object.entries<Json>(t.Outputs ?? {})) outputs[rename(name, id)] = rewrite(name, o) as Json;
  }
  const template = Template.fromJSON({ Resources: resources, Outputs: outputs }, { skipCyclicalDependenciesCheck: true });
  return {
    stageName,
    app,
    stage,
    templates,
    template,
    resources,
    outputs,
    idOf(c: IConstruct) {
      const stack = Stack.of(c);
      const child = (c.node.defaultChild ?? c) as never;
      return rename(stack.stackName, stack.getLogicalId(child));
    },
    stackOfId(id: string) {
      return owner.get(id)!;
    },
  };
}
