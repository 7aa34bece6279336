// Entry point: reads the settings, follows the workspace folders, registers the `agg` task
// provider and says once, with the install command, when agg cannot be found.

import * as vscode from 'vscode';
import { AggNotFound, AggOptions, INSTALL_COMMAND } from './agg';
import { AggTaskProvider } from './provider';
import { Tables } from './tables';
import { TASK_TYPE } from './tasks';

/** The settings, read fresh each time. */
export function readOptions(): AggOptions {
  const config = vscode.workspace.getConfiguration('agg');
  const path = config.get<string>('path')?.trim() || 'agg';
  const listArgs = config.get<unknown>('listArgs');
  return {
    path,
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
  const output = vscode.window.createOutputChannel('agg');
  let notified = false;
  const tables = new Tables(readOptions(), {
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

  const provider = new AggTaskProvider(tables, readOptions);
  context.subscriptions.push(
    output,
    provider,
    { dispose: () => tables.dispose() },
    vscode.tasks.registerTaskProvider(TASK_TYPE, provider),
    vscode.workspace.onDidChangeWorkspaceFolders(() => tables.setFolders(folderRoots())),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('agg')) {
        notified = false;
        tables.setOptions(readOptions());
      }
    }),
    vscode.commands.registerCommand('agg.refresh', () => tables.setOptions(readOptions())),
  );
  return { tables, provider };
}

export function deactivate(): void {}
