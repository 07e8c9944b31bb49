import assert from "node:assert/strict";
import { test } from "node:test";
import { historyMarkdown, openVerdictsFromHistory } from "../../src/history";

const events = [
  { id: "e1aaaaaaaaaa", type: "add", entity: "users.email_verified", reasoning: "verify emails", recorded_at: "2026-03-01T10:00:00Z" },
  { id: "e2bbbbbbbbbb", type: "revert", entity: "users.email_verified", reasoning: "double-sent mails", reverts: "e1aaaaaaaaaa", recorded_at: "2026-04-02T10:00:00Z", author: "ana" },
  { id: "e3cccccccccc", type: "reject", entity: "users.email_verified", reasoning: "slow", alternative: "a trigger", recorded_at: "2026-04-03T10:00:00Z" },
  { id: "e4dddddddddd", type: "supersede", entity: "users.email_verified", reasoning: "fixed the mailer", supersedes: "e2bbbbbb", recorded_at: "2026-05-01T10:00:00Z" },
];

test("the server's own markdown is shown as is", () => {
  assert.equal(historyMarkdown("users", "# History of `users`\n"), "# History of `users`\n");
  assert.equal(historyMarkdown("users", { markdown: "# H\n", events: [] }), "# H\n");
});

test("structured events render newest first with verdict details", () => {
  const md = historyMarkdown("users.email_verified", { events });
  const headings = md.split("\n").filter((l) => l.startsWith("## "));
  assert.deepEqual(
    headings.map((h) => h.split(" · ")[1]),
    ["supersede", "reject", "revert", "add"],
  );
  assert.match(md, /^# History of `users.email_verified`/);
  assert.match(md, /## 2026-04-02 · revert · ana · `e2bbbbbb`/);
  assert.match(md, /\*\*Rejected alternative:\*\* a trigger/);
  assert.match(md, /\*\*Re-opens:\*\* `e2bbbbbb`/);
  assert.match(md, /\*\*Undoes:\*\* `e1aaaaaa`/);
});

test("an empty or unexpected result still reads well", () => {
  assert.match(historyMarkdown("deps/x", []), /No decisions recorded/);
  assert.match(historyMarkdown("deps/x", 42), /No decisions recorded/);
});

test("open verdicts are the reverts and rejects no supersede names (prefix ids too)", () => {
  const open = openVerdictsFromHistory(events);
  assert.deepEqual(open.map((v) => v.id), ["e3cccccccccc"]);
  assert.equal(open[0].alternative, "a trigger");
  assert.equal(open[0].date, "2026-04-03");
});

test("a child's verdicts are not offered for the parent", () => {
  const child = { id: "f5eeeeeeeeee", type: "revert", entity: "users.email", reasoning: "x", recorded_at: "2026-06-01T00:00:00Z" };
  const parent = { id: "f6ffffffffff", type: "reject", entity: "users", reasoning: "y", alternative: "z", recorded_at: "2026-06-02T00:00:00Z" };
  const result = { entity: "users", events: [child, parent] };
  assert.deepEqual(openVerdictsFromHistory(result, "users").map((v) => v.id), ["f6ffffffffff"]);
  assert.deepEqual(openVerdictsFromHistory(result).map((v) => v.id), ["f6ffffffffff", "f5eeeeeeeeee"]);
});
