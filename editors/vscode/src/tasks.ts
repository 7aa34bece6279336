// From a row of agg's table to what VS Code shows and runs, as plain data (no vscode import):
// the label (grouped by runner and directory), the detail line, the build/test group hint and
// the command line, which is always `agg run --json=FILE NAME [ARGS…]` in the task's workspace
// folder (FILE: where agg writes the run's tests and problems for the diagnostics).

import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { AggTask, Param } from './table';

/** The `agg` task type's definition: what tasks.json holds for a customised task. */
export interface AggTaskDefinition {
  type: 'agg';
  /** The unique name, as `agg run` takes it. */
  task: string;
  /** Arguments after the name, exactly as `agg run NAME ARGS…` takes them. */
  args?: string[];
}

export const TASK_TYPE = 'agg';

/** A VS Code task group agg can hint at. */
export type GroupHint = 'build' | 'test';

/** How a task is executed. */
export type Execution =
  /** argv, no shell: `agg run NAME ARGS…`. */
  | { kind: 'process'; command: string; args: string[]; cwd: string }
  /**
   * A task with parameters: `/bin/sh -c` runs agg with the arguments typed into a prompt. VS Code
   * replaces `${command:ID}` with what the prompt command returns; the shell splits it into words
   * as a terminal would.
   */
  | { kind: 'shell'; commandLine: string; cwd: string; promptCommand: string };

/** Everything VS Code needs for one task. */
export interface TaskSpec {
  definition: AggTaskDefinition;
  /** Shown as "source: name" and sorted by it, so one runner's tasks in one directory stay together. */
  source: string;
  name: string;
  detail: string;
  group?: GroupHint;
  execution: Execution;
}

/** Builds the spec for a row. `promptCommand` names the argument prompt of tasks with parameters. */
export function taskSpec(
  row: AggTask,
  root: string,
  aggPath: string,
  promptCommand: (row: AggTask) => string,
): TaskSpec {
  const definition: AggTaskDefinition = { type: TASK_TYPE, task: row.unique_name };
  return {
    definition,
    source: source(row),
    name: shortName(row),
    detail: detail(row),
    group: groupHint(row),
    execution:
      row.params.length > 0
        ? promptExecution(row.unique_name, root, aggPath, promptCommand(row))
        : processExecution(row.unique_name, [], root, aggPath),
  };
}

/** The execution of a task customised in tasks.json: its `args`, never a prompt. */
export function definitionExecution(
  definition: AggTaskDefinition,
  root: string,
  aggPath: string,
): Execution {
  return processExecution(definition.task, definition.args ?? [], root, aggPath);
}

/**
 * Whether the provider offers the row. Not a task agg cannot run, and not a task of the folder's
 * own `.vscode/tasks.json`: VS Code lists and runs those itself (a nested folder's tasks.json it
 * does not read, so agg offers those).
 */
export function offered(row: AggTask): boolean {
  return row.not_runnable === undefined && !(row.runner === 'vscode' && row.file_path === '.vscode/tasks.json');
}

/** `make`, or `make apps/api` for a task outside the root. */
export function source(row: AggTask): string {
  return row.dir === '.' ? row.runner : `${row.runner} ${row.dir}`;
}

/** The unique name without its directory prefix (the source already shows the directory). */
export function shortName(row: AggTask): string {
  const prefix = `${row.dir}/`;
  return row.dir !== '.' && row.unique_name.startsWith(prefix)
    ? row.unique_name.slice(prefix.length)
    : row.unique_name;
}

/** The description, else the command (as `agg list` shows it); a missing runner is said first. */
export function detail(row: AggTask): string {
  const text = row.description?.trim() || `$ ${row.command}`;
  return row.runner_available ? text : `✗ ${row.runner} is not installed · ${text}`;
}

const BUILD_WORDS = new Set(['build', 'compile']);
const TEST_WORDS = new Set(['test', 'tests']);

/**
 * `build` or `test` when the name says so (a word of the runner's own name: `build`, `build:web`,
 * `test-unit`, `apps::test`), when a just `[group]` says so, or for make's conventional `all`.
 */
export function groupHint(row: AggTask): GroupHint | undefined {
  const words = row.source_name.toLowerCase().split(/[^a-z0-9]+/);
  const group = row.group?.toLowerCase();
  if (words.some((w) => TEST_WORDS.has(w)) || group === 'test') return 'test';
  if (words.some((w) => BUILD_WORDS.has(w)) || group === 'build') return 'build';
  if (row.runner === 'make' && row.source_name === 'all') return 'build';
  return undefined;
}

/** A hint for the argument prompt: `env=staging flags…` or, for Taskfile vars, `-e VERSION=…`. */
export function paramsHint(row: AggTask): string {
  return row.params.map((param) => paramHint(row.runner, param)).join(' ');
}

function paramHint(runner: string, param: Param): string {
  if (runner === 'task') return `-e ${param.name}=…`;
  const value = param.default != null ? `${param.name}=${param.default}` : `<${param.name}>`;
  const repeat = param.variadic ? '…' : '';
  return param.required ? `${value}${repeat}` : `[${value}${repeat}]`;
}

/** The extension's own directory for results files, made once per window (mode 0700). */
let resultsDir: string | undefined;

/**
 * Where `agg run --json=FILE` writes a run's tests and problems, for the diagnostics: one file
 * per folder and task, so the extension finds it when the task ends. The files live in a
 * directory only this user can enter, made with a random name: a predictable name in the
 * shared temp directory could be planted by another user as a link to a file of ours.
 */
export function resultsFile(root: string, name: string): string {
  resultsDir ??= fs.mkdtempSync(path.join(os.tmpdir(), 'agg-vscode-results-'));
  const key = createHash('sha256').update(`${root}\0${name}`).digest('hex').slice(0, 16);
  return path.join(resultsDir, `${key}.jsonl`);
}

/** Removes the results directory (on deactivation). */
export function removeResultsDir(): void {
  if (resultsDir !== undefined) {
    fs.rmSync(resultsDir, { recursive: true, force: true });
    resultsDir = undefined;
  }
}

function processExecution(name: string, args: string[], cwd: string, aggPath: string): Execution {
  const run = ['run', `--json=${resultsFile(cwd, name)}`, name];
  // After `--`, every word is an argument, even one that is also a task's name or starts with `-`.
  return { kind: 'process', command: aggPath, args: args.length > 0 ? [...run, '--', ...args] : run, cwd };
}

function promptExecution(name: string, cwd: string, aggPath: string, promptCommand: string): Execution {
  const words = [aggPath, 'run', `--json=${resultsFile(cwd, name)}`, name, '--'];
  const commandLine = `${words.map(shellQuote).join(' ')} \${command:${promptCommand}}`;
  return { kind: 'shell', commandLine, cwd, promptCommand };
}

/** POSIX single quoting: the word arrives as written, whatever it holds. */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}
