// The extension as VS Code drives it, with only the `vscode` module faked: activation, the tasks
// the provider registers for a fixture, their command lines (run for real), argument prompts,
// refresh through agg's watch, settings, and the notification when agg is missing.

import './fake-vscode/register';
import assert = require('node:assert/strict');
import { execFileSync, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { afterEach, test as nodeTest } from 'node:test';
import * as vscode from 'vscode';
import { activate } from '../src/extension';
import { resultsFile } from '../src/tasks';
import { fake, ProcessExecution, ShellExecution, Task, TaskGroup, workspace } from './fake-vscode';
import { aggBin, aggTable, eventually, fixtureCopy, POLYGLOT } from './helpers';

let subscriptions: { dispose(): unknown }[] = [];

/** Every test waits on agg; one that never answers fails instead of hanging. */
function test(name: string, fn: () => Promise<void>): void {
  nodeTest(name, { timeout: 60000 }, fn);
}

afterEach(() => {
  for (const s of subscriptions) s.dispose();
  subscriptions = [];
  fake.reset();
});

/** Activates the extension on these folders with agg.path set to the binary under test. */
function start(roots: string[], settings: Record<string, unknown> = {}) {
  fake.settings.set('agg.path', aggBin());
  for (const [key, value] of Object.entries(settings)) fake.settings.set(key, value);
  workspace.workspaceFolders = roots.map((root, index) => ({ uri: { fsPath: root }, name: path.basename(root), index }));
  const context = { subscriptions } as unknown as vscode.ExtensionContext;
  activate(context);
  const provider = fake.providers.get('agg');
  assert.ok(provider, 'a task provider of type agg is registered');
  return {
    provideTasks: async () => (await provider.provideTasks()) as Task[],
    resolveTask: async (task: unknown) => (await provider.resolveTask(task)) as Task | undefined,
  };
}

/** What VS Code does when a task runs: resolve `${command:…}` variables, then execute. */
async function run(task: Task): Promise<string | undefined> {
  const execution = task.execution;
  if (execution instanceof ProcessExecution) {
    return execFileSync(execution.process, execution.args, { cwd: execution.options?.cwd, encoding: 'utf8' });
  }
  let line = execution.commandLine;
  for (const [variable, id] of line.matchAll(/\$\{command:([^}]+)\}/g)) {
    const value = await vscode.commands.executeCommand<string | undefined>(id);
    if (value === undefined) return undefined; // the prompt was cancelled: VS Code does not run the task
    line = line.replace(variable, value);
  }
  const options = execution.options ?? {};
  return execFileSync(options.executable ?? '/bin/sh', [...(options.shellArgs ?? ['-c']), line], {
    cwd: options.cwd,
    encoding: 'utf8',
  });
}

function byName(tasks: Task[], name: string): Task {
  const task = tasks.find((t) => t.definition.task === name);
  assert.ok(task, `a task ${name}`);
  return task;
}

test('activation registers the provider and a refresh command, and nothing pops up', async () => {
  const { provideTasks } = start([POLYGLOT]);
  assert.ok(fake.commands.has('agg.refresh'));
  const count = (await provideTasks()).length;
  assert.ok(count > 0);
  await vscode.commands.executeCommand('agg.refresh');
  assert.equal((await provideTasks()).length, count, 'the same tasks after a refresh');
  assert.deepEqual(fake.errors, []);
});

test('one task per row of agg list --json, in its order, each running `agg run NAME` in its folder', async () => {
  const { provideTasks } = start([POLYGLOT]);
  const tasks = await provideTasks();
  const rows = aggTable(POLYGLOT).tasks;
  assert.deepEqual(
    tasks.map((t) => t.definition),
    rows.map((r) => ({ type: 'agg', task: r.unique_name })),
  );
  for (const [i, task] of tasks.entries()) {
    const row = rows[i];
    assert.equal(task.scope.uri.fsPath, POLYGLOT);
    assert.deepEqual(task.problemMatchers, [], 'problem matchers are left to the user');
    if ((row.params ?? []).length === 0) {
      assert.ok(task.execution instanceof ProcessExecution, row.unique_name);
      assert.equal(task.execution.process, aggBin());
      assert.deepEqual(task.execution.args, ['run', `--json=${resultsFile(POLYGLOT, row.unique_name)}`, row.unique_name]);
      assert.equal(task.execution.options?.cwd, POLYGLOT);
    } else {
      assert.ok(task.execution instanceof ShellExecution, row.unique_name);
    }
  }
});

test('tasks are labelled and grouped by runner and directory, with the description as detail', async () => {
  const tasks = await start([POLYGLOT]).provideTasks();
  const shown = (name: string) => {
    const t = byName(tasks, name);
    return { source: t.source, name: t.name, detail: t.detail };
  };
  assert.deepEqual(shown('build-m'), { source: 'make', name: 'build-m', detail: 'Build every service' });
  assert.deepEqual(shown('apps/api/run'), { source: 'make apps/api', name: 'run', detail: 'Start the API on :8080' });
  assert.deepEqual(shown('tools/site/serve'), { source: 'npm tools/site', name: 'serve', detail: '$ npm run serve' });
  assert.deepEqual(shown('xtask'), { source: 'cargo', name: 'xtask', detail: 'Run the xtask helper' });
  // A runner that is not installed is said in the detail (the table marks it, agg run refuses it).
  const row = aggTable(POLYGLOT).tasks.find((r) => r.unique_name === 'tools/proto');
  assert.equal(
    byName(tasks, 'tools/proto').detail,
    row?.runner_available ? 'Regenerate the protobuf bindings' : '✗ just is not installed · Regenerate the protobuf bindings',
  );
  // VS Code shows "source: name" and sorts by it: one runner's tasks in one directory are together.
  const labels = tasks.map((t) => `${t.source}: ${t.name}`).sort((a, b) => a.localeCompare(b));
  const groups = labels.map((l) => l.split(':')[0]);
  const seen = new Set<string>();
  for (const [i, group] of groups.entries()) {
    if (i > 0 && groups[i - 1] !== group) assert.ok(!seen.has(group), `${group} is split up`);
    seen.add(group);
  }
  assert.ok(seen.has('make apps/api') && seen.has('pnpm apps/web') && seen.has('make'));
});

test('build and test group hints come from the name or the format', async () => {
  const tasks = await start([POLYGLOT]).provideTasks();
  const group = (name: string) => byName(tasks, name).group;
  assert.equal(group('build-m'), TaskGroup.Build);
  assert.equal(group('apps/web/build'), TaskGroup.Build);
  assert.equal(group('test-m'), TaskGroup.Test);
  assert.equal(group('services/edge/test'), TaskGroup.Test);
  assert.equal(group('lint'), undefined);
  assert.equal(group('deploy'), undefined);
});

test('running the registered tasks runs them through agg (marker files)', async () => {
  const root = fixtureCopy();
  const tasks = await start([root]).provideTasks();
  await run(byName(tasks, 'build'));
  assert.equal(fs.readFileSync(path.join(root, 'marker-build.txt'), 'utf8'), 'built\n');
  await run(byName(tasks, 'test-n'));
  assert.equal(fs.readFileSync(path.join(root, 'marker-test-n.txt'), 'utf8'), 'npm test\n');
  await run(byName(tasks, 'tools/gen'));
  assert.equal(fs.readFileSync(path.join(root, 'tools', 'marker-gen.txt'), 'utf8'), 'generated\n');
});

test("the folder's own tasks.json and what agg cannot run are left to VS Code; a nested tasks.json is offered", async () => {
  const root = fixtureCopy();
  const tasksJson = (tasks: object[]) => JSON.stringify({ version: '2.0.0', tasks });
  fs.mkdirSync(path.join(root, '.vscode'));
  fs.writeFileSync(
    path.join(root, '.vscode', 'tasks.json'),
    tasksJson([{ label: 'root-echo', type: 'shell', command: 'echo root' }]),
  );
  fs.mkdirSync(path.join(root, 'tools', '.vscode'));
  fs.writeFileSync(
    path.join(root, 'tools', '.vscode', 'tasks.json'),
    tasksJson([
      { label: 'nested-mark', type: 'shell', command: 'echo nested > marker-nested.txt' },
      { label: 'tsc-watch', type: 'typescript', tsconfig: 'tsconfig.json', option: 'watch' },
    ]),
  );
  const rows = aggTable(root).tasks.filter((t) => t.runner === 'vscode');
  assert.deepEqual(rows.map((t) => t.source_name).sort(), ['nested-mark', 'root-echo', 'tsc-watch']);
  assert.match(rows.find((t) => t.source_name === 'tsc-watch')?.not_runnable ?? '', /`typescript`/);

  const tasks = await start([root]).provideTasks();
  assert.deepEqual(
    tasks.filter((t) => t.source.startsWith('vscode')).map((t) => t.name),
    ['nested-mark'],
  );
  await run(byName(tasks, 'tools/nested-mark'));
  assert.equal(fs.readFileSync(path.join(root, 'tools', 'marker-nested.txt'), 'utf8'), 'nested\n');
});

test('a task with parameters asks for its arguments, which the shell splits as typed', async () => {
  const root = fixtureCopy();
  const tasks = await start([root]).provideTasks();
  const greet = byName(tasks, 'greet');
  assert.ok(greet.execution instanceof ShellExecution);
  assert.match(greet.execution.commandLine, /^\S+ run --json=\S+ greet -- \$\{command:agg\.arguments\.[^}]+\}$/);
  assert.equal(greet.execution.options?.cwd, root);

  fake.inputAnswer = "'Ada Lovelace'";
  await run(greet);
  assert.equal(fs.readFileSync(path.join(root, 'marker-greet.txt'), 'utf8'), 'hello Ada Lovelace\n');
  const asked = fake.inputRequests[0];
  assert.equal(asked.title, 'agg run greet');
  assert.equal(asked.placeHolder, '<NAME>');

  fs.rmSync(path.join(root, 'marker-greet.txt'));
  fake.inputAnswer = undefined; // Escape
  assert.equal(await run(greet), undefined);
  assert.ok(!fs.existsSync(path.join(root, 'marker-greet.txt')), 'a cancelled prompt runs nothing');
});

test('the prompt of a just recipe shows its parameters and defaults', async () => {
  const tasks = await start([POLYGLOT]).provideTasks();
  fake.inputAnswer = '';
  const deploy = byName(tasks, 'deploy');
  assert.ok(deploy.execution instanceof ShellExecution);
  const id = /\$\{command:([^}]+)\}/.exec(deploy.execution.commandLine)?.[1] ?? '';
  assert.equal(await vscode.commands.executeCommand(id), '');
  assert.equal(fake.inputRequests[0].placeHolder, '[env=staging] [<flags>…]');
});

test('a task customised in tasks.json runs with its own args and no prompt', async () => {
  const root = fixtureCopy();
  const { resolveTask } = start([root]);
  const folder = workspace.workspaceFolders[0];
  const resolved = await resolveTask({ definition: { type: 'agg', task: 'greet', args: ['Bob'] }, scope: folder, name: 'greet', source: 'agg' });
  assert.ok(resolved?.execution instanceof ProcessExecution);
  assert.deepEqual(resolved.execution.args, ['run', `--json=${resultsFile(root, 'greet')}`, 'greet', '--', 'Bob']);
  await run(resolved);
  assert.equal(fs.readFileSync(path.join(root, 'marker-greet.txt'), 'utf8'), 'hello Bob\n');
  assert.equal(fake.inputRequests.length, 0);
});

test('a customised task without args is the listed task: it still asks for parameters', async () => {
  const root = fixtureCopy();
  const { resolveTask } = start([root]);
  const folder = workspace.workspaceFolders[0];
  const greet = await resolveTask({ definition: { type: 'agg', task: 'greet' }, scope: folder, name: 'greet', source: 'xc' });
  assert.ok(greet?.execution instanceof ShellExecution);
  fake.inputAnswer = 'Eve';
  await run(greet);
  assert.equal(fs.readFileSync(path.join(root, 'marker-greet.txt'), 'utf8'), 'hello Eve\n');
  const build = await resolveTask({ definition: { type: 'agg', task: 'build' }, scope: folder, name: 'build', source: 'make' });
  assert.ok(build?.execution instanceof ProcessExecution);
  assert.deepEqual(build.execution.args, ['run', `--json=${resultsFile(root, 'build')}`, 'build']);
});

test('the list follows task files through agg list --watch', async () => {
  const root = fixtureCopy();
  const { provideTasks } = start([root]);
  assert.ok(!(await provideTasks()).some((t) => t.definition.task === 'deploy'));
  fs.appendFileSync(path.join(root, 'Makefile'), '\ndeploy: ## Ship it\n\t@echo shipped > marker-deploy.txt\n');
  const deploy = await eventually('deploy in the task list', async () =>
    (await provideTasks()).find((t) => t.definition.task === 'deploy'),
  );
  assert.equal(deploy.detail, 'Ship it');
  await run(deploy);
  assert.equal(fs.readFileSync(path.join(root, 'marker-deploy.txt'), 'utf8'), 'shipped\n');
  fs.rmSync(path.join(root, 'package.json'));
  await eventually('npm tasks gone', async () =>
    (await provideTasks()).some((t) => t.source === 'npm') ? undefined : true,
  );
});

test('agg.listArgs narrows the list, and a settings change applies at once', async () => {
  const root = fixtureCopy();
  const { provideTasks } = start([root], { 'agg.listArgs': ['--runner', 'npm'] });
  assert.deepEqual(
    (await provideTasks()).map((t) => t.definition.task),
    ['test-n', 'lint'],
  );
  fake.changeSetting('agg.listArgs', ['--dir', 'tools']);
  assert.deepEqual(
    (await provideTasks()).map((t) => t.definition.task),
    ['tools/gen'],
  );
});

test('every workspace folder has its own tasks', async () => {
  const root = fixtureCopy();
  const tasks = await start([root, POLYGLOT]).provideTasks();
  assert.equal(tasks.length, aggTable(root).tasks.length + aggTable(POLYGLOT).tasks.length);
  assert.equal(byName(tasks, 'greet').scope.uri.fsPath, root);
  assert.equal(byName(tasks, 'xtask').scope.uri.fsPath, POLYGLOT);
});

test('a missing agg gives one notification with the install command, and no tasks', async () => {
  const { provideTasks } = start([POLYGLOT, fixtureCopy()], { 'agg.path': '/nonexistent/agg' });
  for (let i = 0; i < 3; i++) assert.deepEqual(await provideTasks(), []);
  assert.equal(fake.errors.length, 1);
  assert.match(fake.errors[0].message, /agg was not found/);
  assert.match(fake.errors[0].message, /cargo install --locked task-agg/);
  assert.deepEqual(fake.errors[0].items, ['Copy install command', 'Open Settings']);
  // Pointing agg.path at the binary brings the tasks.
  fake.changeSetting('agg.path', aggBin());
  assert.equal((await provideTasks()).length, aggTable(POLYGLOT).tasks.length + 7);
});

test("a finished run's compiler errors and warnings become diagnostics at their places", async () => {
  const root = fixtureCopy();
  fs.mkdirSync(path.join(root, 'native'));
  fs.writeFileSync(path.join(root, 'native', 'main.c'), 'int main(void) {\n    int x = "a";\n    return y;\n}\n');
  fs.writeFileSync(path.join(root, 'native', 'Makefile'), 'compile:\n\tgcc -Wall -c main.c -o /dev/null\n');
  const { provideTasks } = start([root]);
  const task = byName(await provideTasks(), 'native/compile');
  assert.ok(task.execution instanceof ProcessExecution);
  // The task as VS Code runs it (it fails: gcc rejects the file), then the end VS Code reports.
  const ran = spawnSync(task.execution.process, task.execution.args, { cwd: task.execution.options?.cwd, encoding: 'utf8' });
  assert.equal(ran.status, 2, ran.stderr);
  for (const listener of fake.taskEndListeners) listener({ execution: { task }, exitCode: ran.status });
  const files = await eventually('the diagnostics', async () => {
    const set = fake.diagnostics.get('agg native/compile');
    return set && set.size > 0 ? set : undefined;
  });
  const list = files.get(path.join(root, 'native', 'main.c'));
  assert.ok(list, `diagnostics of main.c in ${[...files.keys()]}`);
  assert.equal(list.length, 3, list.map((d) => d.message).join('; '));
  assert.deepEqual([list[0].range.start.line, list[0].range.start.character, list[0].severity], [2, 11, vscode.DiagnosticSeverity.Error]);
  assert.match(list[0].message, /y/);
  assert.equal(list[0].source, 'agg: native/compile');
  assert.deepEqual(list.slice(1).map((d) => d.severity), [vscode.DiagnosticSeverity.Warning, vscode.DiagnosticSeverity.Warning]);
  assert.ok(!fs.existsSync(resultsFile(root, 'native/compile')), 'the results file is removed once read');
});
