// Loaded with `node --require` before the tests: `require('vscode')` resolves to the fake
// beside this file. VS Code cannot run here; this is the only part that is not real.
import Module = require('node:module');
import * as path from 'node:path';

const fake = path.join(__dirname, 'index.js');
const moduleWithResolve = Module as unknown as {
  _resolveFilename(request: string, ...rest: unknown[]): string;
};
const original = moduleWithResolve._resolveFilename;
moduleWithResolve._resolveFilename = function (request: string, ...rest: unknown[]): string {
  return request === 'vscode' ? fake : original.call(this, request, ...rest);
};
