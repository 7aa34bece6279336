// agg's MCP server in VS Code, with only the `vscode` module faked: the provider the extension
// registers, the stdio definitions it returns for each workspace folder (started for real, and
// asked for the tasks as Copilot would), the binary a platform-specific package bundles, and
// editors without the MCP API.

import './fake-vscode/register';
import assert = require('node:assert/strict');
import { ChildProcess, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { afterEach, test as nodeTest } from 'node:test';
import * as vscode from 'vscode';
import { BUNDLED_AGG } from '../src/agg';
import { activate } from '../src/extension';
import { MCP_PROVIDER_ID } from '../src/mcp';
import { fake, McpStdioServerDefinition, workspace } from './fake-vscode';
import { aggBin, aggTable, fixtureCopy, POLYGLOT, REPO } from './helpers';

let subscriptions: { dispose(): unknown }[] = [];
const children: ChildProcess[] = [];

function test(name: string, fn: () => Promise<void>): void {
  nodeTest(name, { timeout: 60000 }, fn);
}

afterEach(() => {
  for (const s of subscriptions) s.dispose();
  subscriptions = [];
  // A child whose spawn failed has no pid; killing it would signal this process's group.
  for (const child of children.splice(0)) if (child.pid !== undefined) child.kill('SIGKILL');
  fake.reset();
});

const MANIFEST = JSON.parse(fs.readFileSync(path.join(REPO, 'editors', 'vscode', 'package.json'), 'utf8'));

/** Activates the extension on these folders; `extensionPath` is where it is installed. */
function start(roots: string[], settings: Record<string, unknown>, extensionPath?: string) {
  for (const [key, value] of Object.entries(settings)) fake.settings.set(key, value);
  workspace.workspaceFolders = roots.map((root, index) => ({ uri: { fsPath: root }, name: path.basename(root), index }));
  activate({ subscriptions, extensionPath } as unknown as vscode.ExtensionContext);
  const provider = fake.mcpProviders.get(MCP_PROVIDER_ID);
  assert.ok(provider, `an MCP server definition provider ${MCP_PROVIDER_ID} is registered`);
  return {
    provider,
    definitions: async () => (await provider.provideMcpServerDefinitions({})) as McpStdioServerDefinition[],
  };
}

/** An installed extension folder whose bin/agg is the agg under test, as a platform package has it. */
function installedExtension(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'agg-vscode-ext-'));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  fs.mkdirSync(path.join(dir, 'bin'));
  fs.copyFileSync(aggBin(), path.join(dir, BUNDLED_AGG));
  fs.chmodSync(path.join(dir, BUNDLED_AGG), 0o755);
  return fs.realpathSync(dir);
}

/** Starts a definition the way VS Code does (command, args, cwd) and speaks MCP to it. */
function connect(definition: McpStdioServerDefinition) {
  const child = spawn(definition.command, definition.args, {
    cwd: definition.cwd?.fsPath,
    env: { ...process.env, ...(definition.env as Record<string, string>) },
    stdio: ['pipe', 'pipe', 'ignore'],
  });
  children.push(child);
  const pending = new Map<number, (message: any) => void>();
  readline.createInterface({ input: child.stdout! }).on('line', (line) => {
    const message = JSON.parse(line);
    pending.get(message.id)?.(message);
  });
  let next = 1;
  const request = (method: string, params: unknown) =>
    new Promise<any>((resolve) => {
      const id = next++;
      pending.set(id, resolve);
      child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params })}\n`);
    });
  const notify = (method: string) => child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', method })}\n`);
  return { request, notify };
}

test('package.json contributes the provider the extension registers, and activates for it', async () => {
  assert.deepEqual(
    MANIFEST.contributes.mcpServerDefinitionProviders.map((p: { id: string }) => p.id),
    [MCP_PROVIDER_ID],
  );
  assert.ok(MANIFEST.activationEvents.includes(`onMcpServerDefinitionProvider:${MCP_PROVIDER_ID}`));
  assert.match(MANIFEST.engines.vscode, /^\^1\.(10[1-9]|1[1-9]\d)\./, 'the MCP API is in VS Code 1.101 and later');
  start([POLYGLOT], { 'agg.path': aggBin() });
});

test('one stdio server per workspace folder: agg mcp --root FOLDER, in the folder', async () => {
  const other = fixtureCopy();
  const { definitions } = start([POLYGLOT, other], { 'agg.path': aggBin() });
  const servers = await definitions();
  assert.deepEqual(
    servers.map((d) => ({ label: d.label, command: d.command, args: d.args, cwd: d.cwd?.fsPath })),
    [
      { label: 'agg (polyglot)', command: aggBin(), args: ['mcp', '--root', POLYGLOT], cwd: POLYGLOT },
      { label: `agg (${path.basename(other)})`, command: aggBin(), args: ['mcp', '--root', other], cwd: other },
    ],
  );
  assert.ok(servers.every((d) => d instanceof McpStdioServerDefinition));
  // One folder: the server is simply "agg".
  fake.reset();
  for (const s of subscriptions.splice(0)) s.dispose();
  assert.deepEqual((await start([POLYGLOT], { 'agg.path': aggBin() }).definitions()).map((d) => d.label), ['agg']);
});

test('the server VS Code starts from the definition answers initialize and lists every task of its folder', async () => {
  const { definitions } = start([POLYGLOT], { 'agg.path': aggBin() });
  const [definition] = await definitions();
  const server = connect(definition);
  const init = await server.request('initialize', {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'Visual Studio Code', version: '1.101.0' },
  });
  assert.equal(init.result?.serverInfo?.name, 'agg');
  server.notify('notifications/initialized');
  const listed = await server.request('tools/call', { name: 'list_tasks', arguments: { limit: 500 } });
  const names = (listed.result?.structuredContent?.tasks ?? []).map((t: { unique_name: string }) => t.unique_name);
  assert.deepEqual(
    [...names].sort(),
    aggTable(POLYGLOT)
      .tasks.map((t) => t.unique_name)
      .sort(),
  );
});

test('the bundled agg is used when agg.path is not set, for the MCP server and the tasks alike', async () => {
  const extension = installedExtension();
  const bundled = path.join(extension, BUNDLED_AGG);
  const { definitions } = start([POLYGLOT], {}, extension);
  assert.equal((await definitions())[0].command, bundled);
  const tasks = await fake.providers.get('agg').provideTasks();
  assert.ok(tasks.length > 0, 'the bundled agg lists the tasks');
  assert.equal(tasks.find((t: any) => t.definition.task === 'build-m').execution.process, bundled);
  assert.deepEqual(fake.errors, []);
});

test('agg.path, when set, wins over the bundled agg; with neither, agg is looked up on PATH', async () => {
  const extension = installedExtension();
  const { definitions } = start([POLYGLOT], { 'agg.path': aggBin() }, extension);
  assert.equal((await definitions())[0].command, aggBin());
  fake.changeSetting('agg.path', '');
  assert.equal((await definitions())[0].command, path.join(extension, BUNDLED_AGG));
  for (const s of subscriptions.splice(0)) s.dispose();
  fake.reset();
  const empty = fs.mkdtempSync(path.join(os.tmpdir(), 'agg-vscode-empty-'));
  process.on('exit', () => fs.rmSync(empty, { recursive: true, force: true }));
  const bare = start([POLYGLOT], {}, empty);
  assert.equal((await bare.definitions())[0].command, 'agg');
});

test('VS Code is told to ask again when the folders or agg.path change', async () => {
  const { provider, definitions } = start([POLYGLOT], { 'agg.path': aggBin() });
  let changes = 0;
  provider.onDidChangeMcpServerDefinitions(() => changes++);
  const other = fixtureCopy();
  workspace.workspaceFolders = [...workspace.workspaceFolders, { uri: { fsPath: other }, name: 'other', index: 1 }];
  for (const listener of fake.folderListeners) listener({});
  assert.equal(changes, 1);
  assert.equal((await definitions()).length, 2);
  fake.changeSetting('agg.listArgs', ['--runner', 'make']);
  assert.equal(changes, 1, 'a setting the server does not use changes nothing');
  fake.changeSetting('agg.path', '/elsewhere/agg');
  assert.equal(changes, 2);
  assert.ok((await definitions()).every((d) => d.command === '/elsewhere/agg'));
});

test('an editor without the MCP API still gets the tasks, and nothing fails', async () => {
  fake.withoutLm();
  fake.settings.set('agg.path', aggBin());
  workspace.workspaceFolders = [{ uri: { fsPath: POLYGLOT }, name: 'polyglot', index: 0 }];
  activate({ subscriptions } as unknown as vscode.ExtensionContext);
  assert.equal(fake.mcpProviders.size, 0);
  assert.ok((await fake.providers.get('agg').provideTasks()).length > 0);
  assert.deepEqual(fake.errors, []);
});
