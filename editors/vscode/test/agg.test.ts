// The agg client without VS Code: the watch stream's framing, one-off listings, a missing binary.

import assert = require('node:assert/strict');
import * as fs from 'node:fs';
import * as path from 'node:path';
import { test } from 'node:test';
import { AggNotFound, DocumentSplitter, listOnce, Watch } from '../src/agg';
import { Table } from '../src/table';
import { aggBin, aggTable, fixtureCopy, POLYGLOT } from './helpers';

test('documents are split as agg prints them: one compact line per table', () => {
  const splitter = new DocumentSplitter();
  assert.deepEqual(splitter.push('{"root":"/a","tasks":[]}\n{"root":'), ['{"root":"/a","tasks":[]}']);
  assert.deepEqual(splitter.push('"/b","tasks":[{"x":"}{\\"]"}]}\n'), ['{"root":"/b","tasks":[{"x":"}{\\"]"}]}']);
  assert.deepEqual(splitter.push(''), []);
});

test('indented documents and documents split anywhere are whole too', () => {
  const text = '{\n  "a": [1, {"b": "\\\\"}],\n  "c": "{"\n}\n{"d": 2}';
  const splitter = new DocumentSplitter();
  const documents = [...text].flatMap((c) => splitter.push(c));
  assert.deepEqual(documents.map((d) => JSON.parse(d)), [{ a: [1, { b: '\\' }], c: '{' }, { d: 2 }]);
});

test('listOnce returns the table agg list --json prints', async () => {
  const table = await listOnce(POLYGLOT, { path: aggBin(), listArgs: [] });
  const expected = aggTable(POLYGLOT);
  assert.equal(table.root, expected.root);
  assert.deepEqual(
    table.tasks.map((t) => t.unique_name),
    expected.tasks.map((t) => t.unique_name),
  );
  assert.ok(table.tasks.length > 20);
});

test('listOnce passes the extra filters to agg list', async () => {
  const table = await listOnce(POLYGLOT, { path: aggBin(), listArgs: ['--runner', 'just'] });
  assert.deepEqual(
    table.tasks.map((t) => t.unique_name),
    aggTable(POLYGLOT, '--runner', 'just').tasks.map((t) => t.unique_name),
  );
  assert.ok(table.tasks.every((t) => t.runner === 'just'));
});

test('a missing agg is AggNotFound, with the install command', async () => {
  await assert.rejects(listOnce(POLYGLOT, { path: '/nonexistent/agg', listArgs: [] }), (error: Error) => {
    assert.ok(error instanceof AggNotFound);
    assert.match(error.message, /cargo install --locked task-agg/);
    return true;
  });
});

test("agg's watch prints the table again after a task file changes", { timeout: 30000 }, async () => {
  const root = fixtureCopy();
  const tables: Table[] = [];
  let changed: () => void = () => undefined;
  const second = new Promise<void>((resolve) => (changed = resolve));
  const watch = new Watch(root, { path: aggBin(), listArgs: [] }, {
    table: (table) => {
      tables.push(table);
      if (tables.length === 1) {
        fs.appendFileSync(path.join(root, 'Makefile'), '\ndeploy: ## Ship it\n\t@echo shipped > marker-deploy.txt\n');
      } else {
        changed();
      }
    },
    stderr: () => undefined,
    ended: (error) => assert.fail(`the watch ended: ${error.message}`),
  });
  try {
    await second;
  } finally {
    watch.stop();
  }
  assert.ok(!tables[0].tasks.some((t) => t.unique_name === 'deploy'));
  const deploy = tables[1].tasks.find((t) => t.unique_name === 'deploy');
  assert.equal(deploy?.description, 'Ship it');
  assert.equal(deploy?.file_path, 'Makefile');
});

test('a watch whose agg is missing ends with AggNotFound', { timeout: 30000 }, async () => {
  const ended = await new Promise<Error>((resolve) => {
    new Watch(POLYGLOT, { path: '/nonexistent/agg', listArgs: [] }, {
      table: () => assert.fail('no table expected'),
      stderr: () => undefined,
      ended: resolve,
    });
  });
  assert.ok(ended instanceof AggNotFound);
});
