// A finished run's failed tests and compiler or linter problems, as `agg run --json=FILE` wrote
// them, turned into diagnostics by file (plain data, no vscode import): each at its line and
// column, errors and failed tests as errors, warnings as warnings.

import * as path from 'node:path';

export interface Finding {
  /** 0-based, as VS Code counts. */
  line: number;
  column: number;
  severity: 'error' | 'warning';
  message: string;
  code?: string;
  /** `agg: NAME`, shown beside the message. */
  source: string;
}

interface Run {
  unique_name?: string;
  tests?: { failures?: { name: string; file?: string; line?: number; message?: string }[] };
  problems?: { file: string; line?: number; column?: number; severity: string; message: string; code?: string }[];
}

/** The findings of every run in `text` (one JSON object per line), by absolute file path. */
export function findings(text: string, root: string): Map<string, Finding[]> {
  const byFile = new Map<string, Finding[]>();
  const add = (file: string | undefined, finding: Finding) => {
    if (!file) return;
    const abs = path.isAbsolute(file) ? file : path.join(root, file);
    byFile.set(abs, [...(byFile.get(abs) ?? []), finding]);
  };
  for (const line of text.split('\n')) {
    let run: Run;
    try {
      run = JSON.parse(line) as Run;
    } catch {
      continue;
    }
    const source = `agg: ${run.unique_name ?? ''}`;
    for (const f of run.tests?.failures ?? []) {
      const first = (f.message ?? '').split('\n')[0];
      add(f.file, {
        line: Math.max((f.line ?? 1) - 1, 0),
        column: 0,
        severity: 'error',
        message: first ? `${f.name}: ${first}` : `${f.name} failed`,
        source,
      });
    }
    for (const p of run.problems ?? []) {
      add(p.file, {
        line: Math.max((p.line ?? 1) - 1, 0),
        column: Math.max((p.column ?? 1) - 1, 0),
        severity: p.severity === 'error' ? 'error' : 'warning',
        message: p.message,
        code: p.code,
        source,
      });
    }
  }
  return byFile;
}
