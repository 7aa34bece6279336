#!/usr/bin/env node
// Writes the npm package that carries agg for one platform, task-agg-<os>-<cpu>, into a folder
// ready for `npm pack`: its package.json (the version of task-agg's, `os` and `cpu` so npm
// installs it only there) and the binary as bin/agg.
//   node packaging/npm/platform-package.js RUST_TARGET BINARY OUT_DIR
// prints the folder it wrote.
'use strict';

const fs = require('node:fs');
const path = require('node:path');

// Rust's target triple → Node's process.platform and process.arch.
const TARGETS = {
  'x86_64-unknown-linux-gnu': ['linux', 'x64'],
  'aarch64-unknown-linux-gnu': ['linux', 'arm64'],
  'x86_64-apple-darwin': ['darwin', 'x64'],
  'aarch64-apple-darwin': ['darwin', 'arm64'],
};

const [target, binary, outDir] = process.argv.slice(2);
if (!target || !binary || !outDir) {
  process.stderr.write('usage: platform-package.js RUST_TARGET BINARY OUT_DIR\n');
  process.exit(2);
}
if (!TARGETS[target]) {
  process.stderr.write(`platform-package.js: no npm platform for ${target} (known: ${Object.keys(TARGETS).join(', ')})\n`);
  process.exit(2);
}
const [os, cpu] = TARGETS[target];
const main = require('./task-agg/package.json');
const name = `task-agg-${os}-${cpu}`;
if (main.optionalDependencies[name] !== main.version) {
  process.stderr.write(`platform-package.js: task-agg/package.json must depend on ${name}@${main.version}\n`);
  process.exit(1);
}

const dir = path.join(outDir, name);
fs.rmSync(dir, { recursive: true, force: true });
fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
fs.copyFileSync(binary, path.join(dir, 'bin', 'agg'));
fs.chmodSync(path.join(dir, 'bin', 'agg'), 0o755);
const manifest = {
  name,
  version: main.version,
  description: `The agg binary for ${os} ${cpu}, run by the task-agg package`,
  license: main.license,
  repository: main.repository,
  os: [os],
  cpu: [cpu],
  files: ['bin/agg'],
  preferUnplugged: true,
};
fs.writeFileSync(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
fs.writeFileSync(
  path.join(dir, 'README.md'),
  `# ${name}\n\nThe \`agg\` binary for ${os} ${cpu}. Install [task-agg](https://www.npmjs.com/package/task-agg) instead: it picks this package on this platform.\n`,
);
process.stdout.write(`${dir}\n`);
