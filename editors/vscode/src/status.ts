/** What the status-bar item says about the current file's entities. */

export interface CairnDiagnostic {
  severity: "error" | "warning" | "information" | "hint";
  message: string;
  data?: unknown;
}

export interface StatusSummary {
  text: string;
  tooltip: string;
  /** Draw attention (warning background) when code introduces something with an open verdict. */
  alert: boolean;
}

export type ServerState = "starting" | "running" | "stopped" | "failed";

/** Summary of the cairn diagnostics in one file; the icons are VS Code codicons. */
export function summarise(state: ServerState, diagnostics: CairnDiagnostic[] | undefined): StatusSummary {
  if (state === "starting") {
    return { text: "$(sync~spin) Cairn", tooltip: "Cairn: starting the language server", alert: false };
  }
  if (state === "failed" || state === "stopped") {
    return {
      text: "$(error) Cairn",
      tooltip: `Cairn: the language server is ${state === "failed" ? "not running (click for the log)" : "stopped"}`,
      alert: true,
    };
  }
  if (diagnostics === undefined) {
    return { text: "$(history) Cairn", tooltip: "Cairn: no file open", alert: false };
  }
  const byKind = new Map<string, Set<string>>();
  let loud = false;
  for (const d of diagnostics) {
    const data = isRecord(d.data) ? d.data : {};
    const entity = typeof data.entity === "string" ? data.entity : "?";
    const kind = typeof data.kind === "string" ? data.kind : "verdict";
    const types = Array.isArray(data.verdict_types) ? data.verdict_types.map(String) : [];
    const label = kind === "review" ? "review due" : kind === "conflict" ? "re-applied" : (types[0] ?? "verdict");
    const key = label === "revert" ? "reverted" : label === "reject" ? "rejected" : label;
    if (!byKind.has(key)) {
      byKind.set(key, new Set());
    }
    byKind.get(key)?.add(entity);
    loud ||= d.severity === "error" || d.severity === "warning";
  }
  if (byKind.size === 0) {
    return { text: "$(check) Cairn", tooltip: "Cairn: no open verdicts on this file's entities", alert: false };
  }
  const lines: string[] = [];
  for (const [key, set] of [...byKind.entries()].sort()) {
    lines.push(`${key}: ${[...set].sort().join(", ")}`);
  }
  const icon = loud ? "$(warning)" : "$(info)";
  const counts = [...byKind.entries()].sort().map(([key, set]) => `${set.size} ${key}`);
  return {
    text: `${icon} Cairn: ${counts.join(", ")}`,
    tooltip: `Cairn: this file touches\n${lines.join("\n")}\n(click to list them in Problems)`,
    alert: loud,
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
