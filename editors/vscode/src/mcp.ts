// agg's MCP server for each workspace folder, registered with VS Code's MCP server definition
// provider API: Copilot's agent mode finds every task of the workspace through `agg mcp` without
// any mcp.json. Editors without that API (VS Code before 1.101, some forks) skip it.

import * as vscode from 'vscode';

/** The id under `contributes.mcpServerDefinitionProviders` in package.json. */
export const MCP_PROVIDER_ID = 'agg.mcp';

/** One MCP server as plain data: what VS Code starts, with the folder it serves. */
export interface McpServerSpec {
  label: string;
  command: string;
  args: string[];
  cwd: string;
}

/**
 * The servers for these folders: `agg mcp --root FOLDER` in each, labelled by the folder's name
 * when there are several.
 */
export function mcpServerSpecs(folders: readonly vscode.WorkspaceFolder[], aggPath: string): McpServerSpec[] {
  return folders.map((folder) => ({
    label: folders.length === 1 ? 'agg' : `agg (${folder.name})`,
    command: aggPath,
    args: ['mcp', '--root', folder.uri.fsPath],
    cwd: folder.uri.fsPath,
  }));
}

/**
 * Registers the provider when this VS Code has the API. `changed` is fired when the folders or
 * the agg path change, so VS Code asks again.
 */
export function registerMcpServers(aggPath: () => string): vscode.Disposable[] {
  if (typeof vscode.lm?.registerMcpServerDefinitionProvider !== 'function') return [];
  const changed = new vscode.EventEmitter<void>();
  const provider: vscode.McpServerDefinitionProvider<vscode.McpStdioServerDefinition> = {
    onDidChangeMcpServerDefinitions: changed.event,
    provideMcpServerDefinitions: () =>
      mcpServerSpecs(vscode.workspace.workspaceFolders ?? [], aggPath()).map((spec) => {
        const definition = new vscode.McpStdioServerDefinition(spec.label, spec.command, spec.args);
        definition.cwd = vscode.Uri.file(spec.cwd);
        return definition;
      }),
  };
  return [
    changed,
    vscode.lm.registerMcpServerDefinitionProvider(MCP_PROVIDER_ID, provider),
    vscode.workspace.onDidChangeWorkspaceFolders(() => changed.fire()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration('agg.path')) changed.fire();
    }),
  ];
}
