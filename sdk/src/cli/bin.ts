#!/usr/bin/env node
/** The `idpay` command: see main.ts. */
import { runCli } from './main.js';

runCli(process.argv.slice(2)).catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exitCode = 1;
});
