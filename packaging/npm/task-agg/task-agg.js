#!/usr/bin/env node
// Runs the agg binary of this platform's package (task-agg-<os>-<cpu>, an optional dependency
// npm installs only where its `os` and `cpu` match), with the same arguments, stdio and exit
// status, so `npx --yes --prefix=/ --package=task-agg agg mcp` is agg's MCP server on stdin
// and stdout.
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

// Started by npm exec (npx), agg would inherit what npm adds for scripts: the project's
// node_modules/.bin (and every parent's) ahead of PATH, where a repository can plant a `make`
// or `npm` of its own for the tasks agg runs, and npm's settings as npm_config_* (among them
// the `--prefix=/` of agg's own npx command), which every npm that a task runs would obey.
// agg gets the environment the person started npx with.
function environment() {
  const env = { ...process.env };
  if (env.npm_command !== 'exec' && env.npm_lifecycle_event !== 'npx') return env;
  for (const key of Object.keys(env)) {
    if (key.startsWith('npm_') || key === 'INIT_CWD') delete env[key];
  }
  const added = (dir) =>
    path.basename(dir) === 'node-gyp-bin' ||
    (path.basename(dir) === '.bin' && path.basename(path.dirname(dir)) === 'node_modules');
  for (const key of Object.keys(env).filter((k) => /^path$/i.test(k))) {
    env[key] = env[key]
      .split(path.delimiter)
      .filter((dir) => dir && !added(dir))
      .join(path.delimiter);
  }
  return env;
}

const child = spawn(binary, process.argv.slice(2), { stdio: 'inherit', env: environment() });
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
