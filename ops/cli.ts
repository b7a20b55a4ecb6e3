/**
 * Operations CLI: `npm run ops -- <command> [flags]`. Works against the local stack (reads
 * .local/endpoints.json written by `npm start`) and against a deployed stack (flags, or
 * the standard AWS credentials and region of the shell).
 */
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

type Command = (args: string[]) => Promise<void>;

async function loadCommands(): Promise<Record<string, Command>> {
  const dir = join(dirname(fileURLToPath(import.meta.url)), 'commands');
  const all: Record<string, Command> = {};
  if (!existsSync(dir)) return all;
  for (const f of readdirSync(dir)
    .filter((f) => f.endsWith('.ts'))
    .sort()) {
    const mod = (await import(join(dir, f))) as { commands?: Record<string, Command> };
    Object.assign(all, mod.commands ?? {});
  }
  return all;
}

async function main() {
  const [name, ...args] = process.argv.slice(2);
  const commands = await loadCommands();
  const run = name ? commands[name] : undefined;
  if (!run) {
    console.error(
      `Usage: npm run ops -- <command> [flags]\nCommands:\n${Object.keys(commands)
        .map((c) => `  ${c}`)
        .join('\n')}`,
    );
    process.exit(name ? 2 : 0);
  }
  try {
    await run(args);
  } catch (e) {
    console.error(`${name} failed: ${(e as Error).message}`);
    process.exit(1);
  }
}

void main();
