// agg's table contract, as `agg list --json` prints it (schema/table.schema.json in the agg
// repository). The extension reads these fields and nothing else; it never parses a task file.

/** A parameter a task accepts (just parameters, xc inputs, Taskfile required vars). */
export interface Param {
  name: string;
  default?: string | null;
  required: boolean;
  variadic?: 'zero_or_more' | 'one_or_more' | null;
  exported?: boolean;
}

/** One row of the table. */
export interface AggTask {
  unique_name: string;
  source_name: string;
  runner: string;
  command: string;
  dir: string;
  file_path: string;
  line?: number | null;
  description?: string | null;
  runner_available: boolean;
  params: Param[];
  deps: string[];
  aliases: string[];
  group?: string | null;
  /** Why agg cannot run the task (a VS Code task an extension provides), when it cannot. */
  not_runnable?: string;
}

/** A file agg could not read or understand. */
export interface Diagnostic {
  file_path: string;
  line?: number | null;
  message: string;
}

/** The whole table. */
export interface Table {
  root: string;
  tasks: AggTask[];
  diagnostics: Diagnostic[];
}

/** Thrown when a document is not a table: a different agg version or a broken pipe. */
export class TableError extends Error {}

/** Checks the fields the extension relies on and returns the document as a table. */
export function parseTable(text: string): Table {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new TableError(`agg printed something that is not JSON: ${String(error)}`);
  }
  if (!isObject(value) || typeof value.root !== 'string' || !Array.isArray(value.tasks)) {
    throw new TableError('agg printed JSON without "root" and "tasks": is agg too old?');
  }
  for (const task of value.tasks) {
    if (
      !isObject(task) ||
      typeof task.unique_name !== 'string' ||
      typeof task.runner !== 'string' ||
      typeof task.dir !== 'string' ||
      typeof task.file_path !== 'string'
    ) {
      throw new TableError('agg printed a task without unique_name, runner, dir or file_path');
    }
  }
  const table = value as unknown as Table;
  for (const task of table.tasks) {
    // Optional in older tables; normalised so callers need no checks.
    task.params = Array.isArray(task.params) ? task.params : [];
    task.deps = Array.isArray(task.deps) ? task.deps : [];
    task.aliases = Array.isArray(task.aliases) ? task.aliases : [];
  }
  table.diagnostics = Array.isArray(table.diagnostics) ? table.diagnostics : [];
  return table;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
