// Shared by the tests: the agg binary under test, fresh copies of the fixture, agg's own table.

import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Table } from '../src/table';
import { removeResultsDir } from '../src/tasks';

// The results files the provider's runs leave behind go with the test process.
process.on('exit', removeResultsDir);

/** The repository's root (editors/vscode/out/test → four levels up). */
export const REPO = path.resolve(__dirname, '..', '..', '..', '..');
/** The editors' own fixture: every task writes a marker file. */
export const FIXTURE = path.join(REPO, 'editors', 'fixture');
/** The bundled monorepo: every runner, directories, just parameters and groups. */
export const POLYGLOT = path.join(REPO, 'fixtures', 'polyglot');

/** `AGG_BIN`, else the debug build in CARGO_TARGET_DIR or target/. */
export function aggBin(): string {
  const candidate =
    process.env.AGG_BIN ?? path.join(process.env.CARGO_TARGET_DIR ?? path.join(REPO, 'target'), 'debug', 'agg');
  if (!fs.existsSync(candidate)) {
    throw new Error(`agg not found at ${candidate}: run \`cargo build --bin agg\` or set AGG_BIN`);
  }
  return path.resolve(candidate);
}

/** A fresh copy of editors/fixture, removed when the process exits. */
export function fixtureCopy(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agg-vscode-'));
  fs.cpSync(FIXTURE, dir, { recursive: true });
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return fs.realpathSync(dir);
}

/** What `agg list --json` prints for a root, read here without the extension's code. */
export function aggTable(root: string, ...args: string[]): Table {
  return JSON.parse(execFileSync(aggBin(), ['list', '--json', ...args, root], { encoding: 'utf8' })) as Table;
}

/** Polls `check` until it returns a value (not undefined), or fails after `ms`. */
export async function eventually<T>(what: string, check: () => Promise<T | undefined>, ms = 15000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
