// Entry point: reads the settings, follows the workspace folders, registers the `agg` task
// provider and agg's MCP server for each folder, turns each finished run's failed tests and
// problems into diagnostics, and says once, with the install command, when agg cannot be found.

import * as fs from 'node:fs';
import * as vscode from 'vscode';
import { AggNotFound, AggOptions, chooseAgg, INSTALL_COMMAND } from './agg';
import { registerMcpServers } from './mcp';
import { AggTaskProvider } from './provider';
import { findings } from './diagnostics';
import { Tables } from './tables';
import { AggTaskDefinition, removeResultsDir, resultsFile, TASK_TYPE } from './tasks';

/**
 * The settings, read fresh each time. `extensionPath` is where the extension is installed: a
 * platform-specific package carries agg there, used when agg.path is not set.
 */
export function readOptions(extensionPath?: string): AggOptions {
  const config = vscode.workspace.getConfiguration('agg');
  const listArgs = config.get<unknown>('listArgs');
  return {
    path: chooseAgg(config.get<string>('path'), extensionPath),
    listArgs: Array.isArray(listArgs) ? listArgs.filter((a): a is string => typeof a === 'string') : [],
  };
}

export const COPY_INSTALL = 'Copy install command';
export const OPEN_SETTINGS = 'Open Settings';

export interface Activation {
  tables: Tables;
  provider: AggTaskProvider;
}

export function activate(context: vscode.ExtensionContext): Activation {
  const options = () => readOptions(context.extensionPath);
  const output = vscode.window.createOutputChannel('agg');
  let notified = false;
  const tables = new Tables(options(), {
    notFound: (error: AggNotFound) => {
      output.appendLine(error.message);
      if (notified) return; // one notification, until the settings change
      notified = true;
      void vscode.window
        .showErrorMessage(error.message, COPY_INSTALL, OPEN_SETTINGS)
        .then(async (choice) => {
          if (choice === COPY_INSTALL) await vscode.env.clipboard.writeText(INSTALL_COMMAND);
          if (choice === OPEN_SETTINGS) await vscode.commands.executeCommand('workbench.action.openSettings', 'agg.path');
        });
    },
    log: (message) => output.appendLine(message),
  });
  const folderRoots = () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  tables.setFolders(folderRoots());

  const provider = new AggTaskProvider(tables, options);
  context.subscriptions.push(
    output,
    provider,
    { dispose: () => tables.dispose() },
    vscode.tasks.registerTaskProvider(TASK_TYPE, provider),
    vscode.workspace.onDidChangeWorkspaceFolders(() => tables.setFolders(folderRoots())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('agg')) {
        notified = false;
        tables.setOptions(options());
      }
    }),
    vscode.commands.registerCommand('agg.refresh', () => tables.setOptions(options())),
    ...registerMcpServers(() => options().path),
    vscode.tasks.onDidEndTaskProcess((event) => showResults(event.execution.task, diagnostics)),
    { dispose: () => diagnostics.forEach((c) => c.dispose()) },
  );
  return { tables, provider };
}

/** One collection per folder and task: a run replaces its own last run's diagnostics only. */
const diagnostics = new Map<string, vscode.DiagnosticCollection>();

/** The Problems panel entries of a finished agg task, from what agg wrote to its results file. */
export async function showResults(task: vscode.Task, collections = diagnostics): Promise<void> {
  const definition = task.definition as AggTaskDefinition;
  if (definition.type !== TASK_TYPE || typeof definition.task !== 'string') return;
  const scope = task.scope;
  if (typeof scope !== 'object' || scope === null || !('uri' in scope)) return;
  const root = scope.uri.fsPath;
  const file = resultsFile(root, definition.task);
  let text: string;
  try {
    text = await fs.promises.readFile(file, 'utf8');
    await fs.promises.rm(file, { force: true });
  } catch {
    return; // agg wrote nothing: it did not run, or the task ran another way
  }
  const key = `${root}\0${definition.task}`;
  let collection = collections.get(key);
  if (!collection) {
    collection = vscode.languages.createDiagnosticCollection(`agg ${definition.task}`);
    collections.set(key, collection);
  }
  collection.clear();
  for (const [path, list] of findings(text, root)) {
    collection.set(
      vscode.Uri.file(path),
      list.map((f) => {
        const d = new vscode.Diagnostic(
          new vscode.Range(f.line, f.column, f.line, f.column),
          f.message,
          f.severity === 'error' ? vscode.DiagnosticSeverity.Error : vscode.DiagnosticSeverity.Warning,
        );
        d.source = f.source;
        if (f.code) d.code = f.code;
        return d;
      }),
    );
  }
}

export function deactivate(): void {
  removeResultsDir();
}
