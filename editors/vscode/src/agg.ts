// Talks to the agg binary: one `agg list --json` for a table now, and `agg list --watch --json`,
// agg's own file watch, which prints the table again whenever a task file changes. No vscode here,
// so this part is tested as it is.

import { ChildProcess, execFile, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseTable, Table, TableError } from './table';

/** How the extension reaches agg: the binary and the extra `agg list` filters. */
export interface AggOptions {
  /** A name looked up on PATH, or a path. */
  path: string;
  /** Extra `agg list` arguments (`--runner make,just`, `--dir apps`, `--query build`). */
  listArgs: readonly string[];
}

/** The command a person runs to install agg, shown when it is missing. */
export const INSTALL_COMMAND = 'cargo install --locked task-agg';

/** agg could not be started: not installed, or `agg.path` is wrong. */
export class AggNotFound extends Error {
  constructor(readonly path: string) {
    super(
      `agg was not found (agg.path is "${path}"). Install it with \`${INSTALL_COMMAND}\` ` +
        '(or `pipx install task-agg`, or `npm install -g task-agg`), or set agg.path to the binary.',
    );
  }
}

/** Where a platform-specific package of the extension carries agg. */
export const BUNDLED_AGG = path.join('bin', 'agg');

/**
 * The agg to run: `agg.path` when set, else the binary bundled in the extension (the
 * platform-specific packages carry one), else `agg` on PATH.
 */
export function chooseAgg(setting: string | undefined, extensionPath: string | undefined): string {
  const configured = setting?.trim();
  if (configured) return configured;
  if (extensionPath !== undefined) {
    const bundled = path.join(extensionPath, BUNDLED_AGG);
    if (isExecutable(bundled)) return bundled;
  }
  return 'agg';
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/** agg ran but did not print a table. */
export class AggFailed extends Error {}

/** The arguments of `agg list` for one root. */
export function listArgs(root: string, options: AggOptions, watch: boolean): string[] {
  return ['list', '--json', ...(watch ? ['--watch'] : []), ...options.listArgs, root];
}

/** Runs `agg list --json` once. */
export function listOnce(root: string, options: AggOptions): Promise<Table> {
  return new Promise((resolve, reject) => {
    execFile(
      options.path,
      listArgs(root, options, false),
      { cwd: root, maxBuffer: 256 * 1024 * 1024, env: listEnv() },
      (error, stdout, stderr) => {
        if (error && isNotFound(error)) {
          reject(new AggNotFound(options.path));
        } else if (error) {
          reject(new AggFailed(`agg list failed: ${firstLine(stderr) || error.message}`));
        } else {
          try {
            resolve(parseTable(stdout));
          } catch (parseError) {
            reject(parseError);
          }
        }
      },
    );
  });
}

/** What a watch reports: a new table, a message from agg's stderr, or its end. */
export interface WatchEvents {
  table(table: Table): void;
  stderr(line: string): void;
  /** The watch stopped on its own (not through `stop()`): agg is missing, or it gave up. */
  ended(error: Error): void;
}

/**
 * One `agg list --watch --json` process. agg prints the whole table as one JSON document at
 * start and again after every change to a task file; the documents are split as they arrive.
 */
export class Watch {
  private readonly child: ChildProcess;
  private readonly documents = new DocumentSplitter();
  private stopped = false;
  private lastStderr = '';

  constructor(root: string, options: AggOptions, events: WatchEvents) {
    this.child = spawn(options.path, listArgs(root, options, true), {
      cwd: root,
      env: listEnv(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => {
      for (const document of this.documents.push(chunk)) {
        try {
          events.table(parseTable(document));
        } catch (error) {
          events.stderr(error instanceof TableError ? error.message : String(error));
        }
      }
    });
    this.child.stderr?.setEncoding('utf8');
    this.child.stderr?.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) {
        if (line.trim() !== '') {
          this.lastStderr = line;
          events.stderr(line);
        }
      }
    });
    this.child.on('error', (error) => {
      if (this.stopped) return;
      this.stopped = true;
      events.ended(isNotFound(error) ? new AggNotFound(options.path) : error);
    });
    this.child.on('close', (code, signal) => {
      if (this.stopped) return;
      this.stopped = true;
      const reason = this.lastStderr || `exit ${code ?? signal}`;
      events.ended(new AggFailed(`agg list --watch stopped: ${reason}`));
    });
  }

  /** Ends the watch; `ended` is not reported for it. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // A spawn that failed (agg not found) has no pid, and its 'error' may not have arrived
    // yet: Node would then signal pid 0, which is the editor's own process group.
    if (this.child.pid === undefined) return;
    this.child.kill('SIGTERM');
  }
}

/**
 * Splits a stream of JSON documents: agg prints one per change (one line each when piped),
 * and this also accepts indented documents, so it relies on nothing but JSON's own syntax.
 */
export class DocumentSplitter {
  private buffer = '';
  private depth = 0;
  private inString = false;
  private escaped = false;
  private scanned = 0;

  /** Adds a chunk and returns every document it completed. */
  push(chunk: string): string[] {
    this.buffer += chunk;
    const documents: string[] = [];
    let start = 0;
    for (let i = this.scanned; i < this.buffer.length; i++) {
      const c = this.buffer[i];
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === '\\') this.escaped = true;
        else if (c === '"') this.inString = false;
      } else if (c === '"') {
        this.inString = true;
      } else if (c === '{' || c === '[') {
        this.depth++;
      } else if (c === '}' || c === ']') {
        this.depth--;
        if (this.depth === 0) {
          documents.push(this.buffer.slice(start, i + 1).trim());
          start = i + 1;
        }
      }
    }
    this.buffer = this.buffer.slice(start);
    this.scanned = this.buffer.length;
    return documents;
  }
}

// Table text only: agg colours nothing in JSON, and NO_COLOR keeps its stderr hints plain.
function listEnv(): NodeJS.ProcessEnv {
  return { ...process.env, NO_COLOR: '1' };
}

function isNotFound(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT';
}

function firstLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? '';
}
