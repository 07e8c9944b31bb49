/** When the language server is restarted, and how a failed start is explained. */
import { CloseAction, ErrorAction, type ErrorHandler } from "vscode-languageclient/node";

/**
 * A server that dies before it ever ran is not restarted (its exit is reported once, by
 * `start`); one that crashes later is restarted up to 4 times in 3 minutes, like the
 * client's default.
 */
export function restartPolicy(wasRunning: () => boolean): ErrorHandler {
  const crashes: number[] = [];
  return {
    error: (_error, _message, count) => ({
      action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown,
    }),
    closed: () => {
      if (!wasRunning()) {
        return { action: CloseAction.DoNotRestart, handled: true };
      }
      const now = Date.now();
      crashes.push(now);
      while (crashes.length > 0 && now - crashes[0] > 3 * 60_000) {
        crashes.shift();
      }
      if (crashes.length >= 5) {
        return {
          action: CloseAction.DoNotRestart,
          message: "Cairn: the language server crashed 5 times in 3 minutes and was not restarted; see Cairn: Show the language server log.",
        };
      }
      return { action: CloseAction.Restart, handled: true };
    },
  };
}

export interface ServerExit {
  code: number | string | null;
  stderr: string;
}

/** Why the server did not start: its exit and last stderr line when it died, else the error. */
export async function startFailure(exit: ServerExit, error: unknown): Promise<string> {
  // The client reports the closed connection before the process's exit event arrives.
  for (let i = 0; i < 20 && exit.code === null; i++) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (exit.code === null) {
    return error instanceof Error ? error.message : String(error);
  }
  const last = exit.stderr.trim().split("\n").pop()?.trim();
  return `it exited with ${typeof exit.code === "number" ? `code ${exit.code}` : exit.code}${last ? `: ${last}` : ""}`;
}
