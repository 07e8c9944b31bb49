/** Which of the `cairn.*` settings the language server reads, and in what shape. */

/** Keys of `lsp/settings.py`'s `_KEYS`; anything else in the section stays in the client. */
export const SERVER_KEYS = [
  "severity",
  "removed",
  "debounceMs",
  "codeLens",
  "quiet",
  "quietMaxDecisions",
  "hoverNoDecisions",
  "diagnosticMode",
  "pollIntervalMs",
  "maxFileBytes",
  "maxMessageBytes",
] as const;

export type ServerSettings = Partial<Record<(typeof SERVER_KEYS)[number], unknown>>;

/** The server's part of the `cairn` section (the client-only keys would be reported as unknown). */
export function serverSettings(section: unknown): ServerSettings {
  const out: ServerSettings = {};
  if (section === null || typeof section !== "object") {
    return out;
  }
  const raw = section as Record<string, unknown>;
  for (const key of SERVER_KEYS) {
    const value = raw[key];
    if (value !== undefined && value !== null) {
      out[key] = isPlainObject(value) ? { ...value } : value;
    }
  }
  return out;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
