// The `agg` task provider: each row of a workspace folder's table becomes a vscode.Task
// that runs `agg run NAME` in the integrated terminal. Tasks with parameters ask for their
// arguments first, through a command VS Code calls while it resolves `${command:…}`.

import * as vscode from 'vscode';
import { AggOptions } from './agg';
import { AggTask, Table } from './table';
import { Tables } from './tables';
import {
  AggTaskDefinition,
  definitionExecution,
  Execution,
  offered,
  paramsHint,
  TASK_TYPE,
  TaskSpec,
  taskSpec,
} from './tasks';

export class AggTaskProvider implements vscode.TaskProvider, vscode.Disposable {
  /** Argument prompts registered so far, by command id. */
  private readonly prompts = new Map<string, vscode.Disposable>();

  constructor(
    private readonly tables: Tables,
    private readonly options: () => AggOptions,
  ) {}

  async provideTasks(): Promise<vscode.Task[]> {
    const tasks: vscode.Task[] = [];
    for (const folder of vscode.workspace.workspaceFolders ?? []) {
      let table: Table;
      try {
        table = await this.tables.table(folder.uri.fsPath);
      } catch {
        continue; // reported by Tables (one notification when agg is missing)
      }
      const aggPath = this.options().path;
      for (const row of table.tasks.filter(offered)) {
        const spec = taskSpec(row, folder.uri.fsPath, aggPath, (r) => this.prompt(folder, r));
        tasks.push(this.toTask(folder, spec));
      }
    }
    return tasks;
  }

  /**
   * A task from tasks.json (`{"type": "agg", "task": "build-m", "args": [...]}`): with `args` it
   * runs with them; without, it is the listed task (a task with parameters asks for them).
   */
  async resolveTask(task: vscode.Task): Promise<vscode.Task | undefined> {
    const definition = task.definition as AggTaskDefinition;
    if (typeof definition.task !== 'string') return undefined;
    const folder = isFolder(task.scope) ? task.scope : vscode.workspace.workspaceFolders?.[0];
    if (!folder) return undefined;
    const root = folder.uri.fsPath;
    const aggPath = this.options().path;
    const row =
      definition.args === undefined
        ? (await this.tables.table(root).catch(() => undefined))?.tasks.find((t) => t.unique_name === definition.task)
        : undefined;
    const execution = row
      ? taskSpec(row, root, aggPath, (r) => this.prompt(folder, r)).execution
      : definitionExecution(definition, root, aggPath);
    return new vscode.Task(definition, folder, task.name, task.source || TASK_TYPE, toExecution(execution), []);
  }

  dispose(): void {
    for (const registration of this.prompts.values()) registration.dispose();
    this.prompts.clear();
  }

  private toTask(folder: vscode.WorkspaceFolder, spec: TaskSpec): vscode.Task {
    const task = new vscode.Task(spec.definition, folder, spec.name, spec.source, toExecution(spec.execution), []);
    task.detail = spec.detail;
    if (spec.group === 'build') task.group = vscode.TaskGroup.Build;
    if (spec.group === 'test') task.group = vscode.TaskGroup.Test;
    return task;
  }

  /** The id of the command that asks for this task's arguments (registered once). */
  private prompt(folder: vscode.WorkspaceFolder, row: AggTask): string {
    const root = folder.uri.fsPath;
    const name = row.unique_name;
    const id = `agg.arguments.${encodeURIComponent(root)}.${encodeURIComponent(name)}`;
    if (!this.prompts.has(id)) {
      this.prompts.set(
        id,
        vscode.commands.registerCommand(id, async () => {
          // The parameters as the table has them now, not when the task was listed.
          const current = (await this.tables.table(root).catch(() => undefined))?.tasks.find(
            (t) => t.unique_name === name,
          );
          return askArguments(current ?? row);
        }),
      );
    }
    return id;
  }
}

/**
 * Asks for the arguments, as they would be typed after `agg run NAME` in a shell. Escape
 * returns undefined, which cancels the task.
 */
export async function askArguments(row: AggTask): Promise<string | undefined> {
  const required = row.params.filter((p) => p.required && p.default == null).map((p) => p.name);
  return vscode.window.showInputBox({
    title: `agg run ${row.unique_name}`,
    prompt:
      `Arguments for ${row.unique_name} (${row.runner}), as typed after \`agg run ${row.unique_name}\`: ` +
      '`-e VAR=value` sets a variable, `--` comes before arguments that start with `-`.',
    placeHolder: paramsHint(row),
    ignoreFocusOut: true,
    validateInput: (value) =>
      // just refuses a missing parameter; xc and go-task may find theirs in the environment.
      required.length > 0 && row.runner === 'just' && value.trim() === ''
        ? `${row.unique_name} needs ${required.join(', ')}`
        : undefined,
  });
}

function toExecution(execution: Execution): vscode.ProcessExecution | vscode.ShellExecution {
  if (execution.kind === 'process') {
    return new vscode.ProcessExecution(execution.command, execution.args, { cwd: execution.cwd });
  }
  // sh, whatever the user's terminal shell: the typed arguments are split the POSIX way.
  return new vscode.ShellExecution(execution.commandLine, {
    cwd: execution.cwd,
    executable: '/bin/sh',
    shellArgs: ['-c'],
  });
}

function isFolder(scope: vscode.Task['scope']): scope is vscode.WorkspaceFolder {
  return typeof scope === 'object' && scope !== null && 'uri' in scope;
}
