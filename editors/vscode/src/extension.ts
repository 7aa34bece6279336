// Entry point: reads the settings, follows the workspace folders, registers the `agg` task
// provider and agg's MCP server for each folder, and says once, with the install command, when
// agg cannot be found.

import * as vscode from 'vscode';
import { AggNotFound, AggOptions, chooseAgg, INSTALL_COMMAND } from './agg';
import { registerMcpServers } from './mcp';
import { AggTaskProvider } from './provider';
import { Tables } from './tables';
import { TASK_TYPE } from './tasks';

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
  );
  return { tables, provider };
}

export function deactivate(): void {}
