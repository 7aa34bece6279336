// The current table of every workspace folder, kept fresh by agg's own watch
// (`agg list --watch --json`, one per folder). If the watch cannot run (agg missing, or agg gave
// up following the tree), a folder falls back to one `agg list --json` per request.

import { AggNotFound, AggOptions, listOnce, Watch } from './agg';
import { Table } from './table';

/** Where tables and problems are reported. */
export interface TablesEvents {
  /** A folder's table changed (after a task file changed, or on the first table). */
  refreshed?(root: string, table: Table): void;
  /** agg could not be started. */
  notFound(error: AggNotFound): void;
  /** Anything else worth a line in the log: agg's stderr, a watch that stopped. */
  log(message: string): void;
}

interface FolderState {
  watch?: Watch;
  /** The latest table, or the pending first one. */
  table: Promise<Table>;
  /** The watch stopped: every request runs `agg list --json`. */
  fallback: boolean;
}

export class Tables {
  private readonly folders = new Map<string, FolderState>();

  constructor(
    private options: AggOptions,
    private readonly events: TablesEvents,
  ) {}

  /** Follows exactly these folders: new ones get a watch, removed ones lose theirs. */
  setFolders(roots: readonly string[]): void {
    for (const root of [...this.folders.keys()]) {
      if (!roots.includes(root)) this.drop(root);
    }
    for (const root of roots) {
      if (!this.folders.has(root)) this.folders.set(root, this.start(root));
    }
  }

  /** New settings: every watch starts again with them. */
  setOptions(options: AggOptions): void {
    this.options = options;
    const roots = [...this.folders.keys()];
    for (const root of roots) this.drop(root);
    this.setFolders(roots);
  }

  roots(): string[] {
    return [...this.folders.keys()];
  }

  /** The folder's current table (waits for the first one). */
  table(root: string): Promise<Table> {
    let state = this.folders.get(root);
    if (!state) {
      state = this.start(root);
      this.folders.set(root, state);
    }
    if (state.fallback) {
      state.table = listOnce(root, this.options);
      state.table.catch((error) => this.report(error));
    }
    return state.table;
  }

  dispose(): void {
    for (const root of [...this.folders.keys()]) this.drop(root);
  }

  private start(root: string): FolderState {
    let settleFirst: ((table: Table) => void) | undefined;
    let failFirst: ((error: Error) => void) | undefined;
    const state: FolderState = {
      fallback: false,
      table: new Promise<Table>((resolve, reject) => {
        settleFirst = resolve;
        failFirst = reject;
      }),
    };
    // Rejections are handled by whoever awaits the table; this keeps an unawaited one quiet.
    state.table.catch(() => undefined);
    state.watch = new Watch(root, this.options, {
      table: (table) => {
        if (settleFirst) {
          settleFirst(table);
          settleFirst = failFirst = undefined;
        } else {
          state.table = Promise.resolve(table);
        }
        this.events.refreshed?.(root, table);
      },
      stderr: (line) => this.events.log(`${root}: ${line}`),
      ended: (error) => {
        state.watch = undefined;
        state.fallback = true;
        this.report(error);
        if (failFirst) {
          failFirst(error);
          settleFirst = failFirst = undefined;
        }
        if (!(error instanceof AggNotFound)) {
          this.events.log(`${root}: the task list is read again on every request from now on`);
        }
      },
    });
    return state;
  }

  private drop(root: string): void {
    this.folders.get(root)?.watch?.stop();
    this.folders.delete(root);
  }

  private report(error: unknown): void {
    if (error instanceof AggNotFound) this.events.notFound(error);
    else this.events.log(String(error instanceof Error ? error.message : error));
  }
}
