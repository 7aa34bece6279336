// What the TypeScript client scripts share: the SDK, loaded from $AGG_CLIENTS/npm
// (scripts/clients.sh installs it there), and the tally of their checks.
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const esm = join(process.env.AGG_CLIENTS ?? ".tools/clients", "npm/node_modules/@modelcontextprotocol/sdk/dist/esm");

// A module of the SDK, by its path under dist/esm: `client/index.js`.
export const sdk = (path) => import(pathToFileURL(join(esm, path)).href);

let passed = 0;
let failed = 0;

// Counts a check; a failed one is printed with what it checked.
export const check = (ok, what) => {
  if (ok) passed++;
  else {
    failed++;
    process.stdout.write(`FAIL ${what}\n`);
  }
};

// Prints the tally under `title` and exits, 1 when a check failed.
export const finish = (title) => {
  process.stdout.write(`${title}: ${passed} passed, ${failed} failed\n`);
  process.exit(failed === 0 ? 0 : 1);
};
