// Cairn for OpenCode: the decision digest in front of the agent.
//
// OpenCode has no session-start hook that adds context, so this plugin uses the two
// hooks that do: `experimental.chat.system.transform` appends `cairn digest` (the open
// reverts, rejects, conflicts and due reviews on the files this branch touches, then
// the newest verdicts project-wide) to the system prompt, computed once per session;
// `experimental.session.compacting` recomputes it and adds it to the compaction
// prompt, so it survives compaction. Outside a Cairn project, or without `cairn` on
// PATH (or CAIRN_BIN), it adds nothing. Node's child_process only: OpenCode runs
// plugins in Bun, which provides it.
import { execFile } from "node:child_process";

const DIGEST_CHARS = 4000;
const TIMEOUT_MS = 20000;

function digest(directory) {
  const cairn = process.env.CAIRN_BIN || "cairn";
  return new Promise((resolve) => {
    execFile(
      cairn,
      ["digest", "--json", "--max-chars", String(DIGEST_CHARS)],
      { cwd: directory, timeout: TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 },
      (error, stdout) => {
        if (error) return resolve(null);
        try {
          const found = JSON.parse(stdout);
          resolve(found && Array.isArray(found.items) && found.items.length ? found.text : null);
        } catch {
          resolve(null);
        }
      },
    );
  });
}

export const CairnPlugin = async ({ directory }) => {
  const bySession = new Map();
  return {
    "experimental.chat.system.transform": async (input, output) => {
      const key = (input && input.sessionID) || "";
      if (!bySession.has(key)) bySession.set(key, await digest(directory));
      const text = bySession.get(key);
      if (text) output.system.push(text);
    },
    "experimental.session.compacting": async (input, output) => {
      const text = await digest(directory);
      bySession.set((input && input.sessionID) || "", text);
      if (text) output.context.push(text);
    },
  };
};
