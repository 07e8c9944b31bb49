import assert from "node:assert/strict";
import { test } from "node:test";
import { type Lookup, resolveServerCommand, ServerNotFound } from "../../src/serverCommand";

function lookup(executables: string[], overrides: Partial<Lookup> = {}): Lookup {
  const set = new Set(executables);
  return {
    configured: "",
    args: ["serve"],
    workspaceFolders: ["/repo"],
    pathEnv: "/usr/local/bin:/usr/bin",
    platform: "linux",
    isExecutable: (file) => set.has(file),
    ...overrides,
  };
}

test("the workspace .venv wins over PATH", () => {
  const got = resolveServerCommand(lookup(["/repo/.venv/bin/cairn", "/usr/bin/cairn"]));
  assert.deepEqual(got, { command: "/repo/.venv/bin/cairn", args: ["serve"], source: "workspace .venv" });
});

test("then the first cairn on PATH", () => {
  const got = resolveServerCommand(lookup(["/usr/bin/cairn"]));
  assert.equal(got.command, "/usr/bin/cairn");
  assert.equal(got.source, "PATH");
});

test("the setting wins, with ${workspaceFolder} expanded", () => {
  const got = resolveServerCommand(
    lookup(["/repo/tools/cairn", "/repo/.venv/bin/cairn"], { configured: "${workspaceFolder}/tools/cairn", args: ["serve", "-v"] }),
  );
  assert.deepEqual(got, { command: "/repo/tools/cairn", args: ["serve", "-v"], source: "setting" });
});

test("a bare name in the setting is looked up on PATH", () => {
  assert.equal(resolveServerCommand(lookup(["/usr/local/bin/cairn-dev"], { configured: "cairn-dev" })).command, "/usr/local/bin/cairn-dev");
});

test("a missing configured path names the setting and the fix", () => {
  assert.throws(
    () => resolveServerCommand(lookup(["/usr/bin/cairn"], { configured: "/opt/nope/cairn" })),
    (error: Error) =>
      error instanceof ServerNotFound &&
      error.message.includes("cairn.serverCommand") &&
      error.message.includes("/opt/nope/cairn") &&
      error.message.includes("pip install \"git+$CAIRN_GIT\""),
  );
});

test("nothing found: one message saying where it looked and how to fix it", () => {
  assert.throws(
    () => resolveServerCommand(lookup([])),
    (error: Error) => error instanceof ServerNotFound && /\.venv\/bin\/cairn/.test(error.message) && /PATH/.test(error.message),
  );
});

test("Windows: Scripts\\cairn.exe and ; separated PATH", () => {
  const win = lookup(["C:\\repo\\.venv\\Scripts\\cairn.exe"], { platform: "win32", workspaceFolders: ["C:\\repo"], pathEnv: "C:\\bin;C:\\tools" });
  assert.equal(resolveServerCommand(win).command, "C:\\repo\\.venv\\Scripts\\cairn.exe");
  const onPath = lookup(["C:\\tools\\cairn.exe"], { platform: "win32", workspaceFolders: [], pathEnv: "C:\\bin;C:\\tools" });
  assert.equal(resolveServerCommand(onPath).command, "C:\\tools\\cairn.exe");
});
