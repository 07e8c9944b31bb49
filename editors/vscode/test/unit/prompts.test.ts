import assert from "node:assert/strict";
import { test } from "node:test";
import { ALLOWED_KEYS, completeArguments, DECISION_TYPES, type Verdict, WRITE_COMMANDS } from "../../src/prompts";
import { ScriptedPrompter } from "./fakes";

const noVerdicts = { openVerdicts: async (): Promise<Verdict[]> => [] };
const twoVerdicts: Verdict[] = [
  { id: "aaaa1111bbbb", type: "revert", reasoning: "broke the signup flow", date: "2026-04-02" },
  { id: "cccc2222dddd", type: "reject", reasoning: "too slow", alternative: "a trigger" },
];

test("log asks for the type, then the reasoning, and sends one complete object", async () => {
  const prompter = new ScriptedPrompter(["modify", "  Emails are case-insensitive now  "]);
  const out = await completeArguments("cairn.log", [{ entity: "users.email" }], prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "users.email", type: "modify", reason: "Emails are case-insensitive now" }]);
  assert.equal(prompter.asked.length, 2);
  assert.match(prompter.asked[0], /^pick: .*users\.email/);
  assert.deepEqual(
    prompter.picks[0].map((i) => i.value),
    DECISION_TYPES.map((i) => i.value),
  );
  assert.ok(!prompter.picks[0].some((i) => ["revert", "reject", "supersede", "redact"].includes(i.value)));
});

test("a preset type is offered first; the uri is kept for multi-root workspaces", async () => {
  const prompter = new ScriptedPrompter([(items) => items[0].value, "because"]);
  const args = [{ entity: "deps/stripe", type: "add", uri: "file:///repo/pyproject.toml" }];
  const out = await completeArguments("cairn.log", args, prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "deps/stripe", type: "add", uri: "file:///repo/pyproject.toml", reason: "because" }]);
  assert.equal(prompter.picks[0][0].value, "add");
  assert.equal(prompter.picks[0].length, DECISION_TYPES.length);
});

test("values the quick fix already supplied are not asked again", async () => {
  const prompter = new ScriptedPrompter(["because"]);
  const args = [{ entity: "users.email", of: "aaaa1111bbbb", uri: "file:///repo/db.sql" }];
  const out = await completeArguments("cairn.supersede", args, prompter, { openVerdicts: async () => twoVerdicts });
  assert.deepEqual(out, [{ entity: "users.email", of: "aaaa1111bbbb", uri: "file:///repo/db.sql", reason: "because" }]);
  assert.equal(prompter.asked.length, 1);
  const untouched = new ScriptedPrompter([]);
  const full = [{ entity: "deps/stripe", type: "add", reason: "already there" }];
  assert.deepEqual(await completeArguments("cairn.log", full, untouched, noVerdicts), full);
});

test("cancelling any prompt cancels the command (nothing is sent)", async () => {
  for (const answers of [[undefined], ["modify", undefined]]) {
    const prompter = new ScriptedPrompter(answers);
    assert.equal(await completeArguments("cairn.log", [{ entity: "users.email" }], prompter, noVerdicts), undefined);
  }
  const reject = new ScriptedPrompter(["a trigger", undefined]);
  assert.equal(await completeArguments("cairn.reject", [{ entity: "users" }], reject, noVerdicts), undefined);
});

test("reject asks for the rejected approach before the reasoning", async () => {
  const prompter = new ScriptedPrompter(["Stripe Checkout", "no custom fields"]);
  const out = await completeArguments("cairn.reject", [{ entity: "deps/stripe" }], prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "deps/stripe", alternative: "Stripe Checkout", reason: "no custom fields" }]);
  assert.match(prompter.asked[1], /Stripe Checkout/);
  assert.ok(prompter.inputs.every((i) => i.requiredMessage), "empty answers are refused in the box");
});

test("revert asks only for the reasoning and keeps `reverts`", async () => {
  const prompter = new ScriptedPrompter(["double-sent emails"]);
  const out = await completeArguments("cairn.revert", [{ entity: "users.email_verified", reverts: "abc" }], prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "users.email_verified", reverts: "abc", reason: "double-sent emails" }]);
});

test("supersede with several open verdicts offers a quick pick of them", async () => {
  const prompter = new ScriptedPrompter([(items) => items[1].value, "the trigger is fast now"]);
  const context = { openVerdicts: async (entity: string) => (entity === "users.email" ? twoVerdicts : []) };
  const out = await completeArguments("cairn.supersede", [{ entity: "users.email" }], prompter, context);
  assert.deepEqual(out, [{ entity: "users.email", of: "cccc2222dddd", reason: "the trigger is fast now" }]);
  const items = prompter.picks[0];
  assert.equal(items.length, 2);
  assert.match(items[0].label, /revert aaaa1111 \(2026-04-02\)/);
  assert.equal(items[0].detail, "broke the signup flow");
  assert.equal(items[1].description, "rejected: a trigger");
});

test("supersede with one open verdict takes it without asking", async () => {
  const prompter = new ScriptedPrompter(["ok now"]);
  const context = { openVerdicts: async () => [twoVerdicts[0]] };
  const out = await completeArguments("cairn.supersede", [{ entity: "users.email" }], prompter, context);
  assert.deepEqual(out, [{ entity: "users.email", of: "aaaa1111bbbb", reason: "ok now" }]);
  assert.deepEqual(prompter.asked.length, 1);
});

test("supersede narrows to the verdicts a diagnostic names, and strips the hint", async () => {
  const prompter = new ScriptedPrompter(["fine"]);
  const context = { openVerdicts: async () => twoVerdicts };
  const args = [{ entity: "users.email", verdict_ids: ["cccc2222"] }];
  const out = await completeArguments("cairn.supersede", args, prompter, context);
  assert.deepEqual(out, [{ entity: "users.email", of: "cccc2222dddd", reason: "fine" }]);
});

test("supersede without an open verdict says so and sends nothing", async () => {
  const prompter = new ScriptedPrompter([]);
  assert.equal(await completeArguments("cairn.supersede", [{ entity: "users.email" }], prompter, noVerdicts), undefined);
  assert.deepEqual(prompter.errors, ["users.email has no open revert or reject to supersede."]);
});

test("a missing entity is asked for; a bare string is taken as the entity", async () => {
  const prompter = new ScriptedPrompter([" env/STRIPE_KEY ", "rotated"]);
  const out = await completeArguments("cairn.revert", [], prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "env/STRIPE_KEY", reason: "rotated" }]);
  const fromString = await completeArguments("cairn.revert", ["deps/left-pad"], new ScriptedPrompter(["x"]), noVerdicts);
  assert.deepEqual(fromString, [{ entity: "deps/left-pad", reason: "x" }]);
});

test("history is asked not to open its own document (the extension renders it)", async () => {
  const prompter = new ScriptedPrompter([]);
  const out = await completeArguments("cairn.history", [{ entity: "users.email", show: true, uri: "file:///a" }], prompter, noVerdicts);
  assert.deepEqual(out, [{ entity: "users.email", show: false, uri: "file:///a" }]);
  assert.deepEqual(prompter.asked, []);
});

test("other commands pass through untouched", async () => {
  const prompter = new ScriptedPrompter([]);
  const args = [{ entity: "users.email" }];
  assert.equal(await completeArguments("editor.action.format", args, prompter, noVerdicts), args);
  assert.equal(await completeArguments("cairn.history", [], prompter, noVerdicts).then((a) => a?.length), 0);
});

test("the keys sent never include ones the server refuses", async () => {
  for (const command of WRITE_COMMANDS) {
    const prompter = new ScriptedPrompter(["modify", "alt", "why", "why", "why"]);
    const context = { openVerdicts: async () => [twoVerdicts[0]] };
    const out = await completeArguments(command, [{ entity: "users.email", stray: 1, kind: "verdict" }], prompter, context);
    assert.ok(out);
    for (const key of Object.keys(out[0] as object)) {
      assert.ok(ALLOWED_KEYS[command].includes(key), `${command} sent ${key}`);
    }
    assert.equal((out[0] as { reason: string }).reason.length > 0, true);
  }
});
