/** The Cairn extension: starts `cairn serve` and adds the prompts, views and status a person needs. */
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as vscode from "vscode";
import {
  DidChangeConfigurationNotification,
  ExecuteCommandRequest,
  LanguageClient,
  type LanguageClientOptions,
  type Middleware,
  RevealOutputChannelOn,
  type ServerOptions,
  State,
} from "vscode-languageclient/node";
import { openVerdictsFromHistory } from "./history";
import { showHistory } from "./historyView";
import { completeArguments, type PickItem, type Prompter, type Verdict, WRITE_COMMANDS } from "./prompts";
import { INSTALL_HINT, resolveServerCommand, ServerNotFound, type ServerCommand } from "./serverCommand";
import { restartPolicy, type ServerExit, startFailure } from "./serverLifecycle";
import { SERVER_KEYS, serverSettings } from "./settings";
import { type Attention, type CairnDiagnostic, type ServerState, summarise } from "./status";

const SERVER_COMMANDS = [...WRITE_COMMANDS, "cairn.history"];

let client: LanguageClient | undefined;
let serverState: ServerState = "starting";
let output: vscode.OutputChannel;
let statusItem: vscode.StatusBarItem;

export async function activate(context: vscode.ExtensionContext): Promise<void> {
  output = vscode.window.createOutputChannel("Cairn");
  statusItem = vscode.window.createStatusBarItem("cairn.status", vscode.StatusBarAlignment.Left, 50);
  statusItem.name = "Cairn";
  statusItem.command = "cairn.showFileStatus";
  statusItem.show();
  context.subscriptions.push(
    output,
    statusItem,
    vscode.languages.onDidChangeDiagnostics(() => updateStatus()),
    vscode.window.onDidChangeActiveTextEditor(() => updateStatus()),
    vscode.workspace.onDidChangeConfiguration((event) => onConfigurationChanged(event)),
    vscode.commands.registerCommand("cairn.logDecision", () => runOnEntity("cairn.log")),
    vscode.commands.registerCommand("cairn.rejectAlternative", () => runOnEntity("cairn.reject")),
    vscode.commands.registerCommand("cairn.recordRevert", () => runOnEntity("cairn.revert")),
    vscode.commands.registerCommand("cairn.supersedeVerdict", () => runOnEntity("cairn.supersede")),
    vscode.commands.registerCommand("cairn.showHistory", () => runOnEntity("cairn.history")),
    vscode.commands.registerCommand("cairn.restartServer", () => restart()),
    vscode.commands.registerCommand("cairn.showLog", () => output.show(true)),
    vscode.commands.registerCommand("cairn.showFileStatus", () =>
      serverState === "running"
        ? vscode.commands.executeCommand("workbench.actions.view.problems")
        : output.show(true),
    ),
  );
  await start();
}

export async function deactivate(): Promise<void> {
  await client?.stop();
  client = undefined;
}

async function start(): Promise<void> {
  setState("starting");
  let server: ServerCommand;
  try {
    server = resolveServerCommand({
      configured: config().get<string>("serverCommand", ""),
      args: config().get<string[]>("serverArgs", ["serve"]),
      workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
      pathEnv: process.env.PATH ?? "",
      platform: process.platform,
      isExecutable,
    });
  } catch (error) {
    setState("failed");
    if (error instanceof ServerNotFound) {
      output.appendLine(error.message);
      void offerFix(error.message);
      return;
    }
    throw error;
  }
  output.appendLine(`Starting ${server.command} ${server.args.join(" ")} (from ${server.source})`);
  const cwd = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // Spawned here (not by the client) to keep the exit code and the last stderr line:
  // "exited with code 2: cairn: error: ..." says more than "connection got disposed".
  const exit: ServerExit = { code: null, stderr: "" };
  let everRunning = false;
  let reported = false;
  // Called from the process's exit and from start()'s rejection: whichever comes first
  // (the client does not always settle start() when the server dies during initialize).
  let self: LanguageClient | undefined;
  const reportFailure = async (error?: unknown): Promise<void> => {
    // A client replaced by a restart is stopped on purpose: that is not a failure.
    if (everRunning || reported || (self !== undefined && client !== self)) {
      return;
    }
    reported = true;
    setState("failed");
    const why = await startFailure(exit, error);
    const message = `Cairn: the language server did not start (${server.command} ${server.args.join(" ")}): ${why}. ${INSTALL_HINT}`;
    output.appendLine(message);
    void offerFix(message);
  };
  const serverOptions: ServerOptions = () =>
    new Promise<ChildProcess>((resolve, reject) => {
      const child = spawn(server.command, server.args, { cwd, stdio: "pipe" });
      child.stderr.on("data", (chunk: Buffer) => {
        exit.stderr = (exit.stderr + chunk.toString("utf8")).slice(-4000);
      });
      // "close", not "exit": by then stderr has been read to the end.
      child.on("close", (code, signal) => {
        exit.code = code ?? signal;
        void reportFailure();
      });
      child.once("error", reject);
      child.once("spawn", () => resolve(child));
    });
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: "file" }],
    outputChannel: output,
    revealOutputChannelOn: RevealOutputChannelOn.Never,
    initializationOptions: currentServerSettings(),
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/.cairn/decisions.jsonl") },
    // Hover cards link to `command:cairn.history?...`; only our own commands are trusted.
    markdown: { isTrusted: { enabledCommands: SERVER_COMMANDS }, supportHtml: false },
    middleware,
    errorHandler: restartPolicy(() => everRunning),
    initializationFailedHandler: (error) => {
      output.appendLine(`Initialisation failed: ${String(error)}`);
      return false;
    },
  };
  const created = new LanguageClient("cairn", "Cairn", serverOptions, clientOptions);
  client = created;
  self = created;
  created.onDidChangeState((event) => {
    if (client !== created) {
      return;
    }
    everRunning ||= event.newState === State.Running;
    setState(event.newState === State.Running ? "running" : event.newState === State.Starting ? "starting" : "stopped");
  });
  try {
    await created.start();
  } catch (error) {
    await reportFailure(error);
  }
}

async function restart(): Promise<void> {
  const old = client;
  client = undefined;
  if (old) {
    try {
      await old.stop();
    } catch (error) {
      output.appendLine(`Stopping the old server: ${errorText(error)}`);
    }
  }
  await start();
}

async function offerFix(message: string): Promise<void> {
  const text = message.startsWith("Cairn") ? message : `Cairn: ${message}`;
  const choice = await vscode.window.showErrorMessage(text, "Open Settings", "Show Log", "Retry");
  if (choice === "Open Settings") {
    await vscode.commands.executeCommand("workbench.action.openSettings", "cairn.serverCommand");
  } else if (choice === "Show Log") {
    output.show(true);
  } else if (choice === "Retry") {
    await restart();
  }
}

/** Fills command arguments with input boxes, shows history, and reports failures as one line. */
const middleware: Middleware = {
  executeCommand: async (command, args, next) => {
    const completed = await completeArguments(command, args, prompter, { openVerdicts });
    if (completed === undefined) {
      return undefined;
    }
    let result: unknown;
    try {
      result = await next(command, completed);
    } catch (error) {
      void vscode.window.showErrorMessage(`Cairn: ${errorText(error)}`);
      return undefined;
    }
    const first = completed[0] as Record<string, unknown> | undefined;
    const entity = typeof first?.entity === "string" ? first.entity : "";
    if (command === "cairn.history") {
      await showHistory(entity, result);
    } else if ((WRITE_COMMANDS as readonly string[]).includes(command)) {
      const what = command === "cairn.log" && typeof first?.type === "string" ? first.type : command.slice("cairn.".length);
      vscode.window.setStatusBarMessage(`$(check) Cairn: recorded ${what} on ${entity}`, 5000);
    }
    return result;
  },
  workspace: {
    // The section also holds client-only keys (serverCommand...); the server gets its own.
    configuration: async (params, token, next) => {
      const result = await next(params, token);
      if (!Array.isArray(result)) {
        return result;
      }
      return result.map((value, i) => (params.items[i]?.section === "cairn" ? serverSettings(value) : value));
    },
  },
};

const prompter: Prompter = {
  input: (options) =>
    Promise.resolve(
      vscode.window.showInputBox({
        title: options.title,
        prompt: options.prompt,
        placeHolder: options.placeHolder,
        value: options.value,
        ignoreFocusOut: true,
        validateInput: (text) => (options.requiredMessage && !text.trim() ? options.requiredMessage : undefined),
      }),
    ),
  pick: async (items, options) => {
    const picked = await vscode.window.showQuickPick(
      items.map((item) => ({ ...item, picked: false })),
      { title: options.title, placeHolder: options.placeHolder, matchOnDescription: true, matchOnDetail: true, ignoreFocusOut: true },
    );
    return picked as PickItem | undefined;
  },
  error: (message) => void vscode.window.showErrorMessage(`Cairn: ${message}`),
};

/** Open verdicts on an entity: from the diagnostics already shown, else from its history. */
async function openVerdicts(entity: string): Promise<Verdict[]> {
  const found = new Map<string, Verdict>();
  for (const [, diagnostics] of vscode.languages.getDiagnostics()) {
    for (const d of diagnostics) {
      const data = diagnosticData(d);
      if (d.source !== "cairn" || data.entity !== entity || data.kind === "review") {
        continue;
      }
      const ids = Array.isArray(data.verdict_ids) ? data.verdict_ids.map(String) : [];
      const types = Array.isArray(data.verdict_types) ? data.verdict_types.map(String) : [];
      ids.forEach((id, i) => found.set(id, { id, type: types[i] ?? "verdict", reasoning: d.message }));
    }
  }
  if (found.size > 0 || !client) {
    return [...found.values()];
  }
  try {
    const history = await client.sendRequest(ExecuteCommandRequest.type, {
      command: "cairn.history",
      arguments: [{ entity, show: false }],
    });
    return openVerdictsFromHistory(history, entity);
  } catch (error) {
    output.appendLine(`Reading the history of ${entity}: ${errorText(error)}`);
    return [];
  }
}

/** A palette command: find the entity under the cursor, then run the server's command on it. */
async function runOnEntity(command: string): Promise<void> {
  if (!client || serverState !== "running") {
    void offerFix(`Cairn: the language server is not running. ${INSTALL_HINT}`);
    return;
  }
  const entity = await entityAtCursor();
  if (entity === undefined) {
    return;
  }
  await vscode.commands.executeCommand(command, { entity });
}

async function entityAtCursor(): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  if (editor) {
    const position = editor.selection.active;
    for (const d of vscode.languages.getDiagnostics(editor.document.uri)) {
      const data = diagnosticData(d);
      if (d.source === "cairn" && d.range.contains(position) && typeof data.entity === "string") {
        return data.entity;
      }
    }
    // The server maps symbols to entities; its code actions at the cursor name the entity.
    const actions = await vscode.commands.executeCommand<(vscode.CodeAction | vscode.Command)[]>(
      "vscode.executeCodeActionProvider",
      editor.document.uri,
      new vscode.Range(position, position),
    );
    for (const action of actions ?? []) {
      const cmd = "command" in action && typeof action.command === "object" ? action.command : (action as vscode.Command);
      const arg = cmd?.arguments?.[0] as Record<string, unknown> | undefined;
      if (cmd?.command?.startsWith("cairn.") && typeof arg?.entity === "string") {
        return arg.entity;
      }
    }
  }
  const word = editor ? editor.document.getText(editor.document.getWordRangeAtPosition(editor.selection.active)) : "";
  const typed = await vscode.window.showInputBox({
    title: "Cairn",
    prompt: "Which entity? (users.email, src/auth.py::Session.login, deps/stripe, env/STRIPE_KEY)",
    value: word,
    ignoreFocusOut: true,
    validateInput: (text) => (text.trim() ? undefined : "Name an entity."),
  });
  return typed?.trim();
}

let statusRequest = 0;

function updateStatus(): void {
  const editor = vscode.window.activeTextEditor;
  const diagnostics: CairnDiagnostic[] | undefined = editor
    ? vscode.languages
        .getDiagnostics(editor.document.uri)
        .filter((d) => d.source === "cairn")
        .map((d) => ({ severity: severityName(d.severity), message: d.message, data: diagnosticData(d) }))
    : undefined;
  show(summarise(serverState, diagnostics));
  if (!editor || serverState !== "running") {
    return;
  }
  // The server's lenses follow its quiet rule: each is an entity worth a look. Only the
  // newest request may repaint (the active editor may have changed meanwhile).
  const request = ++statusRequest;
  void attentionIn(editor.document.uri).then((attention) => {
    if (request === statusRequest && attention.length > 0) {
      show(summarise(serverState, diagnostics, attention));
    }
  });
}

function show(summary: ReturnType<typeof summarise>): void {
  statusItem.text = summary.text;
  statusItem.tooltip = summary.tooltip;
  statusItem.backgroundColor = summary.alert ? new vscode.ThemeColor("statusBarItem.warningBackground") : undefined;
}

async function attentionIn(uri: vscode.Uri): Promise<Attention[]> {
  try {
    const lenses = await vscode.commands.executeCommand<vscode.CodeLens[]>("vscode.executeCodeLensProvider", uri);
    const out: Attention[] = [];
    for (const lens of lenses ?? []) {
      const arg = lens.command?.arguments?.[0] as Record<string, unknown> | undefined;
      if (lens.command?.command === "cairn.history" && typeof arg?.entity === "string") {
        out.push({ entity: arg.entity, title: lens.command.title });
      }
    }
    return out;
  } catch {
    return []; // no lens provider for this document (not a language the server handles)
  }
}

function setState(state: ServerState): void {
  serverState = state;
  updateStatus();
}

function onConfigurationChanged(event: vscode.ConfigurationChangeEvent): void {
  if (event.affectsConfiguration("cairn.serverCommand") || event.affectsConfiguration("cairn.serverArgs")) {
    void restart();
    return;
  }
  if (client && serverState === "running" && event.affectsConfiguration("cairn")) {
    void client.sendNotification(DidChangeConfigurationNotification.type, { settings: { cairn: currentServerSettings() } });
  }
}

function currentServerSettings(): Record<string, unknown> {
  const section = config();
  return serverSettings(Object.fromEntries(SERVER_KEYS.map((key) => [key, section.get(key)])));
}

function config(): vscode.WorkspaceConfiguration {
  return vscode.workspace.getConfiguration("cairn");
}

function diagnosticData(d: vscode.Diagnostic): Record<string, unknown> {
  const data = (d as vscode.Diagnostic & { data?: unknown }).data;
  return typeof data === "object" && data !== null ? (data as Record<string, unknown>) : {};
}

function severityName(severity: vscode.DiagnosticSeverity): CairnDiagnostic["severity"] {
  switch (severity) {
    case vscode.DiagnosticSeverity.Error:
      return "error";
    case vscode.DiagnosticSeverity.Warning:
      return "warning";
    case vscode.DiagnosticSeverity.Information:
      return "information";
    default:
      return "hint";
  }
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
