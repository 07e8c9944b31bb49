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

/** An entity whose history deserves attention in this file: the server's code lenses
 * follow its quiet rule (cairn/attention.py), so each `cairn.history` lens is one. */
export interface Attention {
  entity: string;
  title: string;
}

/** Summary of the cairn diagnostics in one file; the icons are VS Code codicons. */
export function summarise(
  state: ServerState,
  diagnostics: CairnDiagnostic[] | undefined,
  attention: Attention[] = [],
): StatusSummary {
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
  const notable = worthReading(attention, byKind);
  if (byKind.size === 0) {
    if (notable.length > 0) {
      return {
        text: `$(history) Cairn: ${notable.length} worth a look`,
        tooltip: `Cairn: history worth reading in this file\n${notable.join("\n")}`,
        alert: false,
      };
    }
    return { text: "$(check) Cairn", tooltip: "Cairn: nothing in this file deserves attention", alert: false };
  }
  const lines: string[] = [];
  for (const [key, set] of [...byKind.entries()].sort()) {
    lines.push(`${key}: ${[...set].sort().join(", ")}`);
  }
  const icon = loud ? "$(warning)" : "$(info)";
  const counts = [...byKind.entries()].sort().map(([key, set]) => `${set.size} ${key}`);
  const more = notable.length > 0 ? `\nalso worth reading:\n${notable.join("\n")}` : "";
  return {
    text: `${icon} Cairn: ${counts.join(", ")}`,
    tooltip: `Cairn: this file touches\n${lines.join("\n")}${more}\n(click to list them in Problems)`,
    alert: loud,
  };
}

/** `entity — lens title` for lenses whose entity no diagnostic already names. */
function worthReading(attention: Attention[], byKind: Map<string, Set<string>>): string[] {
  const named = new Set<string>();
  for (const set of byKind.values()) {
    for (const entity of set) {
      named.add(entity);
    }
  }
  const seen = new Set<string>();
  const out: string[] = [];
  for (const a of attention) {
    if (!named.has(a.entity) && !seen.has(a.entity)) {
      seen.add(a.entity);
      out.push(`${a.entity} — ${a.title}`);
    }
  }
  return out.sort();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
