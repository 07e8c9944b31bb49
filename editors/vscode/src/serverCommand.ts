/** Finding the `cairn` executable that serves the language server. */
import * as path from "node:path";

export interface ServerCommand {
  command: string;
  args: string[];
  /** Where the command came from, for the log and error messages. */
  source: "setting" | "workspace .venv" | "PATH";
}

export interface Lookup {
  configured: string;
  args: string[];
  workspaceFolders: string[];
  pathEnv: string;
  platform: NodeJS.Platform;
  isExecutable(file: string): boolean;
}

export class ServerNotFound extends Error {}

/** The fix we suggest whenever the server cannot be found or started. */
export const INSTALL_HINT =
  "Install Cairn (`pip install \"git+$CAIRN_GIT\"`, or `make venv` in a clone: see the README, Install) or set `cairn.serverCommand` to the full path of `cairn`.";

/** Resolve the setting, then the workspace's `.venv`, then `cairn` on PATH. */
export function resolveServerCommand(lookup: Lookup): ServerCommand {
  const windows = lookup.platform === "win32";
  const exe = windows ? "cairn.exe" : "cairn";
  const configured = lookup.configured.trim();
  if (configured) {
    const expanded = expandWorkspace(configured, lookup.workspaceFolders);
    const hasSlash = expanded.includes("/") || (windows && expanded.includes("\\"));
    if (hasSlash) {
      if (!lookup.isExecutable(expanded)) {
        throw new ServerNotFound(
          `cairn.serverCommand is "${configured}", but ${expanded} is not an executable file. ${INSTALL_HINT}`,
        );
      }
      return { command: expanded, args: lookup.args, source: "setting" };
    }
    const onPath = searchPath(expanded, lookup);
    if (!onPath) {
      throw new ServerNotFound(
        `cairn.serverCommand is "${configured}", which is not on PATH. ${INSTALL_HINT}`,
      );
    }
    return { command: onPath, args: lookup.args, source: "setting" };
  }
  for (const folder of lookup.workspaceFolders) {
    const candidate = windows
      ? path.win32.join(folder, ".venv", "Scripts", exe)
      : path.posix.join(folder, ".venv", "bin", exe);
    if (lookup.isExecutable(candidate)) {
      return { command: candidate, args: lookup.args, source: "workspace .venv" };
    }
  }
  const found = searchPath(exe, lookup);
  if (found) {
    return { command: found, args: lookup.args, source: "PATH" };
  }
  throw new ServerNotFound(
    `Cairn could not find its language server: no .venv/bin/cairn in the workspace and no \`cairn\` on PATH. ${INSTALL_HINT}`,
  );
}

/** `${workspaceFolder}/x` and `~/x` as users write them in settings. */
function expandWorkspace(value: string, folders: string[]): string {
  let out = value;
  if (folders.length > 0) {
    out = out.replace(/\$\{workspaceFolder\}/g, folders[0]);
  }
  const home = process.env.HOME ?? process.env.USERPROFILE;
  if (home && (out === "~" || out.startsWith("~/"))) {
    out = home + out.slice(1);
  }
  return out;
}

function searchPath(name: string, lookup: Lookup): string | undefined {
  const windows = lookup.platform === "win32";
  const sep = windows ? ";" : ":";
  const join = windows ? path.win32.join : path.posix.join;
  for (const dir of lookup.pathEnv.split(sep)) {
    if (!dir) {
      continue;
    }
    const candidate = join(dir, name);
    if (lookup.isExecutable(candidate)) {
      return candidate;
    }
  }
  return undefined;
}
