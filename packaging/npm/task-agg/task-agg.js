#!/usr/bin/env node
// Runs the agg binary of this platform's package (task-agg-<os>-<cpu>, an optional dependency
// npm installs only where its `os` and `cpu` match), with the same arguments, stdio and exit
// status, so `npx -y task-agg mcp` is agg's MCP server on stdin and stdout.
'use strict';

const { spawn } = require('node:child_process');
const path = require('node:path');
const { optionalDependencies } = require('./package.json');

const platform = `${process.platform}-${process.arch}`;
const packageName = `task-agg-${platform}`;
const otherWays = '`cargo install task-agg` (Rust) or `pipx install task-agg` (Python)';

function fail(message) {
  process.stderr.write(`task-agg: ${message}\n`);
  process.exit(1);
}

if (!Object.prototype.hasOwnProperty.call(optionalDependencies, packageName)) {
  const supported = Object.keys(optionalDependencies)
    .map((name) => name.slice('task-agg-'.length))
    .join(', ');
  fail(`there is no prebuilt agg for ${platform} (prebuilt: ${supported}). Install agg with ${otherWays}.`);
}

let binary;
try {
  binary = require.resolve(path.posix.join(packageName, 'bin', 'agg'));
} catch {
  fail(
    `${packageName}, which holds agg for ${platform}, is not installed: npm installs it as an optional ` +
      'dependency of task-agg, unless optional dependencies are left out (--omit=optional, ' +
      `--no-optional). Reinstall task-agg with them, or install agg with ${otherWays}.`,
  );
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit' });
// A signal to this process is meant for agg: an MCP client that stops its server signals the
// process it started, which is this one.
const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP'];
for (const signal of forwarded) process.on(signal, () => child.kill(signal));
child.on('error', (error) => fail(`could not start ${binary}: ${error.message}`));
child.on('exit', (code, signal) => {
  if (signal) {
    for (const s of forwarded) process.removeAllListeners(s);
    process.kill(process.pid, signal);
  } else {
    process.exit(code ?? 1);
  }
});
