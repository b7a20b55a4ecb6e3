/**
 * `npm run openapi`: regenerates the OpenAPI documents (sandbox, live) and the /docs page
 * from the route table, the handlers' zod schemas, the event schemas and the installed
 * renderer (scripts/openapi/artifacts.ts). Commit the result: the Lambdas bundle these
 * files, and test/docs/openapi.test.ts fails when they are stale.
 *
 * `npm run openapi -- --check`: writes nothing; exits 1 when a file is stale.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { REPO_ROOT, buildArtifacts, readExisting } from './artifacts';

async function main() {
  const check = process.argv.includes('--check');
  const { artifacts, warnings } = await buildArtifacts();
  for (const w of warnings) console.warn(`warning: ${w.where}: ${w.message} (documented as any value)`);
  let stale = 0;
  for (const a of artifacts) {
    const fresh = a.isFresh(readExisting(a.path));
    if (fresh) {
      console.log(`up to date  ${a.path}`);
      continue;
    }
    stale++;
    if (check) console.log(`STALE       ${a.path}`);
    else {
      writeFileSync(resolve(REPO_ROOT, a.path), a.content);
      console.log(`written     ${a.path} (${Buffer.byteLength(a.content)} bytes)`);
    }
  }
  if (check && stale) {
    console.error(`${stale} file(s) out of date: run npm run openapi and commit them`);
    process.exitCode = 1;
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
