import assert from "node:assert/strict";
import { test } from "node:test";
import { summarise } from "../../src/status";

const reverted = {
  severity: "warning" as const,
  message: "users.email_verified was reverted",
  data: { entity: "users.email_verified", kind: "verdict", verdict_types: ["revert"] },
};

test("server states come first", () => {
  assert.match(summarise("starting", []).text, /sync~spin/);
  const failed = summarise("failed", []);
  assert.match(failed.text, /\$\(error\)/);
  assert.ok(failed.alert);
});

test("a clean file says so", () => {
  const s = summarise("running", []);
  assert.equal(s.text, "$(check) Cairn");
  assert.equal(s.alert, false);
});

test("history worth a look (the server's quiet-rule lenses) shows without alarm", () => {
  const lenses = [
    { entity: "users.nickname", title: "3 decisions · re-added after removal" },
    { entity: "users", title: "1 decision" },
    { entity: "users.nickname", title: "3 decisions · re-added after removal" },
  ];
  const s = summarise("running", [], lenses);
  assert.equal(s.text, "$(history) Cairn: 2 worth a look");
  assert.equal(s.alert, false);
  assert.match(s.tooltip, /users\.nickname — 3 decisions · re-added after removal/);
  // an entity a diagnostic already names is not listed twice
  const both = summarise("running", [reverted], [{ entity: "users.email_verified", title: "2 decisions" }, ...lenses]);
  assert.equal(both.text, "$(warning) Cairn: 1 reverted");
  assert.doesNotMatch(both.tooltip, /users\.email_verified — /);
  assert.match(both.tooltip, /also worth reading:\nusers — 1 decision/);
});

test("counts entities per verdict kind; warnings raise the alert", () => {
  const rejectedRef = {
    severity: "information" as const,
    message: "deps/stripe was rejected",
    data: { entity: "deps/stripe", kind: "verdict", verdict_types: ["reject"] },
  };
  const review = { severity: "information" as const, message: "review due", data: { entity: "users", kind: "review", verdict_types: ["add"] } };
  const s = summarise("running", [reverted, { ...reverted }, rejectedRef, review]);
  assert.equal(s.text, "$(warning) Cairn: 1 rejected, 1 reverted, 1 review due");
  assert.ok(s.alert);
  assert.match(s.tooltip, /reverted: users\.email_verified/);
  assert.match(s.tooltip, /rejected: deps\/stripe/);
  const quiet = summarise("running", [rejectedRef]);
  assert.equal(quiet.text, "$(info) Cairn: 1 rejected");
  assert.equal(quiet.alert, false);
});

test("re-applied without supersede is its own kind", () => {
  const conflict = { ...reverted, data: { entity: "users.email_verified", kind: "conflict", verdict_types: ["revert"] } };
  assert.equal(summarise("running", [conflict]).text, "$(warning) Cairn: 1 re-applied");
});
