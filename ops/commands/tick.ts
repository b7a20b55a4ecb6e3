/**
 * Stop and restart time during an incident. Deployed: the EventBridge Scheduler schedule's
 * State (GetSchedule/UpdateSchedule; `--schedule <name>` or env TICK_SCHEDULE_NAME, from the
 * stack output TickScheduleName; `--group`, default "default"). Local: the local tick.
 */
import { GetScheduleCommand, SchedulerClient, UpdateScheduleCommand } from '@aws-sdk/client-scheduler';
import { writeFileSync } from 'node:fs';
import { localPaths, readLocalTickState } from '../../local/paths';
import { flags } from '../common';

type State = 'ENABLED' | 'DISABLED';

function target(args: string[]) {
  const f = flags(args);
  const name = (f.schedule as string | undefined) ?? process.env.TICK_SCHEDULE_NAME;
  return { name, group: (f.group as string | undefined) ?? process.env.TICK_SCHEDULE_GROUP ?? 'default', local: f.local === true || !name };
}

async function awsState(name: string, group: string, set?: State): Promise<State> {
  const client = new SchedulerClient({});
  const s = await client.send(new GetScheduleCommand({ Name: name, GroupName: group }));
  if (set && s.State !== set) {
    // UpdateSchedule replaces the whole definition: send it back unchanged but for State.
    await client.send(
      new UpdateScheduleCommand({
        Name: s.Name!,
        GroupName: s.GroupName,
        ScheduleExpression: s.ScheduleExpression!,
        ScheduleExpressionTimezone: s.ScheduleExpressionTimezone,
        StartDate: s.StartDate,
        EndDate: s.EndDate,
        Description: s.Description,
        FlexibleTimeWindow: s.FlexibleTimeWindow!,
        Target: s.Target!,
        KmsKeyArn: s.KmsKeyArn,
        ActionAfterCompletion: s.ActionAfterCompletion,
        State: set,
      }),
    );
    return set;
  }
  return (s.State as State) ?? 'ENABLED';
}

async function run(args: string[], set?: State) {
  const t = target(args);
  let state: State;
  if (t.local) {
    if (set) writeFileSync(localPaths().tickState, `${set}\n`);
    state = readLocalTickState();
    console.log(`local tick: ${state}${set ? ' (the running npm start picks it up at its next tick)' : ''}`);
  } else {
    state = await awsState(t.name!, t.group, set);
    console.log(`schedule ${t.group}/${t.name}: ${state}`);
  }
}

export const commands = {
  'tick:status': (args: string[]) => run(args),
  'tick:pause': (args: string[]) => run(args, 'DISABLED'),
  'tick:resume': (args: string[]) => run(args, 'ENABLED'),
};
