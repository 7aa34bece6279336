// Draws the Run Task quick pick for the README's screenshot (VS Code cannot run here): the
// extension is activated on a folder with the tests' fake `vscode` module, and the tasks its
// provider returns are listed as VS Code lists a task type's tasks: sorted by "source: name",
// the detail on a second line. Usage: node out/test/quick-pick.js FOLDER > page.html

import './fake-vscode/register';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activate } from '../src/extension';
import { fake, Task, workspace } from './fake-vscode';
import { aggBin } from './helpers';

const VISIBLE = 14;

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

async function main(): Promise<void> {
  const root = path.resolve(process.argv[2] ?? '.');
  fake.settings.set('agg.path', aggBin());
  workspace.workspaceFolders = [{ uri: { fsPath: root }, name: path.basename(root), index: 0 }];
  const context = { subscriptions: [] as { dispose(): unknown }[] };
  activate(context as unknown as vscode.ExtensionContext);
  const tasks = (await fake.providers.get('agg').provideTasks()) as Task[];
  for (const s of context.subscriptions) s.dispose();

  const rows = tasks
    .map((t) => ({ label: `${t.source}: ${t.name}`, detail: t.detail ?? '' }))
    .sort((a, b) => a.label.localeCompare(b.label));
  const items = rows.slice(0, VISIBLE).map(
    (row, i) => `<div class="item${i === 0 ? ' focused' : ''}">
      <div class="label">${escape(row.label)}</div>
      <div class="detail">${escape(row.detail)}</div></div>`,
  );
  process.stdout.write(`<!doctype html><meta charset="utf-8"><style>
body { margin: 0; background: #1f1f1f; font: 13px system-ui, 'DejaVu Sans', sans-serif; color: #cccccc; }
.titlebar { height: 30px; background: #181818; border-bottom: 1px solid #2b2b2b; text-align: center; line-height: 30px; color: #9d9d9d; }
.editor { position: absolute; top: 31px; left: 0; right: 0; bottom: 0; background: #1f1f1f; }
.pick { position: absolute; top: 40px; left: 50%; width: 620px; margin-left: -310px; background: #252526;
  box-shadow: 0 0 12px rgba(0,0,0,.6); border: 1px solid #454545; border-radius: 6px; padding: 6px 0 4px; }
.input { margin: 0 6px 6px; padding: 4px 6px; background: #313131; border: 1px solid #0078d4; border-radius: 2px; color: #989898; }
.item { padding: 3px 11px 4px; }
.item.focused { background: #04395e; outline: 1px solid #0078d4; outline-offset: -1px; }
.label { color: #e0e0e0; white-space: nowrap; }
.detail { color: #9d9d9d; font-size: 12px; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
.more { padding: 4px 11px; color: #9d9d9d; font-size: 12px; border-top: 1px solid #3c3c3c; margin-top: 4px; }
.note { position: absolute; bottom: 8px; left: 12px; color: #6e6e6e; font-size: 11px; }
</style>
<div class="titlebar">${escape(path.basename(root))}</div>
<div class="editor"><div class="pick">
<div class="input">Select the task to run</div>
${items.join('\n')}
<div class="more">… ${rows.length - VISIBLE} more agg tasks · Go back ↩</div>
</div>
<div class="note">Rendered from the agg extension's task provider on fixtures/polyglot as VS Code's Run Task lists them (VS Code itself could not run here).</div>
</div>
`);
}

main().catch((error) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
