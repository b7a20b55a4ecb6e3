/**
 * Builds the package into dist/: ESM (dist/esm, for `import`) and CommonJS (dist/cjs, for
 * `require`, marked by its own package.json), each with its type declarations. Run by
 * `npm run build`, by `npm pack` (prepack) and by the repository's `npm run sdk:build`.
 * TypeScript is the package's own devDependency (`npm ci` in sdk/); inside the repository the
 * root's install serves too (the same version).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const sdk = join(dirname(fileURLToPath(import.meta.url)), '..');
let tsc;
try {
  tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
} catch {
  console.error('@idpay/sdk build: TypeScript not found; run `npm ci` in sdk/ first');
  process.exit(1);
}

rmSync(join(sdk, 'dist'), { recursive: true, force: true });
for (const config of ['tsconfig.json', 'tsconfig.cjs.json']) {
  // tsc's diagnostics go to stderr: `npm pack --json` keeps stdout for its JSON
  execFileSync(process.execPath, [tsc, '-p', join(sdk, config)], { stdio: ['ignore', 2, 2] });
}
writeFileSync(join(sdk, 'dist', 'cjs', 'package.json'), `${JSON.stringify({ type: 'commonjs' })}\n`);
chmodSync(join(sdk, 'dist', 'esm', 'cli', 'bin.js'), 0o755); // the `idpay` command
console.error('@idpay/sdk built: dist/esm (import), dist/cjs (require)');
