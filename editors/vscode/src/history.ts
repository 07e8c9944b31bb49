/** `cairn.history` results -> the markdown shown in the history view, and open verdicts. */
import type { Verdict } from "./prompts";

export interface HistoryEvent {
  id: string;
  type: string;
  entity?: string;
  reasoning?: string | null;
  alternative?: string | null;
  supersedes?: string | null;
  reverts?: string | null;
  author?: string | null;
  recorded_at?: string | null;
  occurred_at?: string | null;
}

/** The events in a history result, whatever envelope the server chose. */
export function historyEvents(result: unknown): HistoryEvent[] {
  const list = Array.isArray(result)
    ? result
    : isRecord(result) && Array.isArray(result.events)
      ? result.events
      : [];
  return list.filter(
    (e): e is HistoryEvent => isRecord(e) && typeof e.id === "string" && typeof e.type === "string",
  );
}

/** Markdown for the history view: the server's own rendering when it sent one. */
export function historyMarkdown(entity: string, result: unknown): string {
  if (typeof result === "string") {
    return result;
  }
  if (isRecord(result) && typeof result.markdown === "string") {
    return result.markdown;
  }
  const events = historyEvents(result);
  const lines = [`# History of \`${entity}\``, ""];
  if (events.length === 0) {
    lines.push("No decisions recorded.");
  }
  for (const event of [...events].sort((a, b) => eventDate(b).localeCompare(eventDate(a)))) {
    const day = eventDate(event).slice(0, 10);
    const author = event.author ? ` · ${event.author}` : "";
    lines.push(`## ${day} · ${event.type}${author} · \`${event.id.slice(0, 8)}\``);
    if (event.entity && event.entity !== entity) {
      lines.push(`*on \`${event.entity}\`*`);
    }
    if (event.alternative) {
      lines.push(`**Rejected alternative:** ${event.alternative}`);
    }
    if (event.supersedes) {
      lines.push(`**Re-opens:** \`${event.supersedes.slice(0, 8)}\``);
    }
    if (event.reverts) {
      lines.push(`**Undoes:** \`${event.reverts.slice(0, 8)}\``);
    }
    lines.push("", event.reasoning || "*(no reasoning recorded)*", "");
  }
  return lines.join("\n").trimEnd() + "\n";
}

/**
 * Reverts and rejects on `entity` that no supersede in the history names, newest first
 * (the server's history includes children's events, which a supersede of `entity` cannot name).
 */
export function openVerdictsFromHistory(result: unknown, entity?: string): Verdict[] {
  const events = historyEvents(result).filter((e) => !entity || !e.entity || e.entity === entity);
  const superseded = events.filter((e) => e.type === "supersede" && e.supersedes).map((e) => e.supersedes as string);
  return events
    .filter((e) => (e.type === "revert" || e.type === "reject") && !superseded.some((s) => e.id.startsWith(s) || s.startsWith(e.id)))
    .sort((a, b) => eventDate(b).localeCompare(eventDate(a)))
    .map((e) => ({
      id: e.id,
      type: e.type,
      reasoning: e.reasoning ?? "",
      alternative: e.alternative ?? undefined,
      date: eventDate(e).slice(0, 10) || undefined,
    }));
}

function eventDate(event: HistoryEvent): string {
  return event.occurred_at || event.recorded_at || "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
