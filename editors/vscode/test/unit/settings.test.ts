import assert from "node:assert/strict";
import { test } from "node:test";
import { serverSettings } from "../../src/settings";

test("only the server's keys are forwarded, nested severities included", () => {
  const section = {
    serverCommand: "/x/cairn",
    serverArgs: ["serve"],
    trace: { server: "off" },
    severity: { introduce: "error", reference: "hint", conflict: "warning", review: "off" },
    codeLens: false,
    quiet: false,
    quietMaxDecisions: 5,
    hoverNoDecisions: true,
    debounceMs: 50,
  };
  assert.deepEqual(serverSettings(section), {
    severity: { introduce: "error", reference: "hint", conflict: "warning", review: "off" },
    codeLens: false,
    quiet: false,
    quietMaxDecisions: 5,
    hoverNoDecisions: true,
    debounceMs: 50,
  });
});

test("nothing usable gives an empty object, never a crash", () => {
  assert.deepEqual(serverSettings(null), {});
  assert.deepEqual(serverSettings("cairn"), {});
  assert.deepEqual(serverSettings({ codeLens: null }), {});
});
