// The smallest `vscode` module the extension runs against: the classes it constructs and the
// namespaces it calls, recording what it did so tests can look. Nothing else of VS Code's API.

export class Disposable {
  constructor(private readonly callOnDispose: () => void) {}
  dispose(): void {
    this.callOnDispose();
  }
}

export class Uri {
  private constructor(readonly fsPath: string) {}
  static file(fsPath: string): Uri {
    return new Uri(fsPath);
  }
}

export class EventEmitter<T> {
  private readonly listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void) => {
    this.listeners.push(listener);
    return new Disposable(() => this.listeners.splice(this.listeners.indexOf(listener), 1));
  };
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.length = 0;
  }
}

export class McpStdioServerDefinition {
  cwd?: Uri;
  constructor(
    readonly label: string,
    public command: string,
    public args: string[] = [],
    public env: Record<string, string | number | null> = {},
    public version?: string,
  ) {}
}

export interface WorkspaceFolder {
  uri: Uri;
  name: string;
  index: number;
}

export class ProcessExecution {
  constructor(
    readonly process: string,
    readonly args: string[],
    readonly options?: { cwd?: string },
  ) {}
}

export class ShellExecution {
  constructor(
    readonly commandLine: string,
    readonly options?: { cwd?: string; executable?: string; shellArgs?: string[] },
  ) {}
}

export class Position {
  constructor(
    readonly line: number,
    readonly character: number,
  ) {}
}

export class Range {
  readonly start: Position;
  readonly end: Position;
  constructor(startLine: number, startCharacter: number, endLine: number, endCharacter: number) {
    this.start = new Position(startLine, startCharacter);
    this.end = new Position(endLine, endCharacter);
  }
}

export enum DiagnosticSeverity {
  Error = 0,
  Warning = 1,
  Information = 2,
  Hint = 3,
}

export class Diagnostic {
  source?: string;
  code?: string | number;
  constructor(
    readonly range: Range,
    readonly message: string,
    readonly severity: DiagnosticSeverity = DiagnosticSeverity.Error,
  ) {}
}

export class TaskGroup {
  static readonly Build = new TaskGroup('build');
  static readonly Test = new TaskGroup('test');
  private constructor(readonly id: string) {}
}

export class Task {
  detail?: string;
  group?: TaskGroup;
  constructor(
    readonly definition: { type: string; [key: string]: unknown },
    readonly scope: WorkspaceFolder,
    readonly name: string,
    readonly source: string,
    readonly execution: ProcessExecution | ShellExecution,
    readonly problemMatchers: string[],
  ) {}
}

type Listener = (event: any) => void;

/** What the tests set and read. */
export const fake = {
  settings: new Map<string, unknown>(),
  errors: [] as { message: string; items: string[] }[],
  /** The answer showInputBox gives next; the options it was called with. */
  inputAnswer: undefined as string | undefined,
  inputRequests: [] as any[],
  log: [] as string[],
  commands: new Map<string, (...args: any[]) => any>(),
  providers: new Map<string, any>(),
  /** MCP server definition providers, by id. */
  mcpProviders: new Map<string, any>(),
  /** Plays an editor without the MCP API (VS Code before 1.101, some forks): no `vscode.lm`. */
  withoutLm(): void {
    lm = undefined;
  },
  folderListeners: [] as Listener[],
  configListeners: [] as Listener[],
  taskEndListeners: [] as Listener[],
  /** The diagnostics the extension set, by collection name, then by file. */
  diagnostics: new Map<string, Map<string, Diagnostic[]>>(),
  clipboard: '',
  reset(): void {
    this.settings.clear();
    this.errors.length = 0;
    this.inputAnswer = undefined;
    this.inputRequests.length = 0;
    this.log.length = 0;
    this.commands.clear();
    this.providers.clear();
    this.mcpProviders.clear();
    lm = lmApi;
    this.folderListeners.length = 0;
    this.configListeners.length = 0;
    this.taskEndListeners.length = 0;
    this.diagnostics.clear();
    workspace.workspaceFolders = [];
  },
  /** Changes a setting and tells the extension, as VS Code does. */
  changeSetting(key: string, value: unknown): void {
    this.settings.set(key, value);
    const event = { affectsConfiguration: (section: string) => key === section || key.startsWith(`${section}.`) };
    for (const listener of this.configListeners) listener(event);
  },
};

function listen(list: Listener[]) {
  return (listener: Listener) => {
    list.push(listener);
    return new Disposable(() => list.splice(list.indexOf(listener), 1));
  };
}

export const workspace = {
  workspaceFolders: [] as WorkspaceFolder[],
  getConfiguration(section: string) {
    return { get: <T>(key: string): T | undefined => fake.settings.get(`${section}.${key}`) as T | undefined };
  },
  onDidChangeWorkspaceFolders: listen(fake.folderListeners),
  onDidChangeConfiguration: listen(fake.configListeners),
};

export const window = {
  createOutputChannel: (_name: string) => ({
    appendLine: (line: string) => fake.log.push(line),
    dispose: () => undefined,
  }),
  showErrorMessage: (message: string, ...items: string[]) => {
    fake.errors.push({ message, items });
    return Promise.resolve(undefined);
  },
  showInputBox: (options: any) => {
    fake.inputRequests.push(options);
    return Promise.resolve(fake.inputAnswer);
  },
};

export const commands = {
  registerCommand: (id: string, callback: (...args: any[]) => any) => {
    if (fake.commands.has(id)) throw new Error(`command ${id} already exists`);
    fake.commands.set(id, callback);
    return new Disposable(() => fake.commands.delete(id));
  },
  executeCommand: (id: string, ...args: any[]) => Promise.resolve(fake.commands.get(id)?.(...args)),
};

export const tasks = {
  registerTaskProvider: (type: string, provider: any) => {
    fake.providers.set(type, provider);
    return new Disposable(() => fake.providers.delete(type));
  },
  onDidEndTaskProcess: listen(fake.taskEndListeners),
};

export const languages = {
  createDiagnosticCollection: (name: string) => {
    const files = new Map<string, Diagnostic[]>();
    fake.diagnostics.set(name, files);
    return {
      set: (uri: Uri, list: Diagnostic[]) => void files.set(uri.fsPath, list),
      clear: () => files.clear(),
      dispose: () => void fake.diagnostics.delete(name),
    };
  },
};

export const env = {
  clipboard: { writeText: (text: string) => ((fake.clipboard = text), Promise.resolve()) },
};

const lmApi = {
  registerMcpServerDefinitionProvider: (id: string, provider: any) => {
    if (fake.mcpProviders.has(id)) throw new Error(`MCP server definition provider ${id} already exists`);
    fake.mcpProviders.set(id, provider);
    return new Disposable(() => fake.mcpProviders.delete(id));
  },
};

export let lm: typeof lmApi | undefined = lmApi;
