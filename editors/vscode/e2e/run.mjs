// End-to-end test in a real VS Code: code-server with the packaged .vsix, driven by
// Playwright through Debian's Chromium. It hovers a re-added column whose addition was
// reverted, sees the warning, runs the quick fix, answers the reasoning prompt, sees
// the warning go, and checks the supersede landed in .cairn/decisions.jsonl.
//
// Every wait is on a DOM condition; a timeout saves a screenshot and says what was
// missing. Screenshots go to test-results/ (git-ignored).
import { spawn, spawnSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const here = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const repo = resolve(process.env.CAIRN_REPO ?? join(here, "..", ".."));
const venvBin = join(repo, ".venv", "bin");
const codeServer = join(here, ".e2e", "code-server", "node_modules", "code-server", "out", "node", "entry.js");
const vsix = join(here, "dist", "cairn.vsix");
const results = join(here, "test-results");
const chromiumPath = process.env.CHROMIUM ?? "/usr/bin/chromium";
const WAIT_MS = Number(process.env.CAIRN_E2E_WAIT_MS ?? 90_000);
const REASON = "The backfill now runs in batches of 1000; re-adding email_verified is safe.";
const RETYPE_REASON = "A timestamp says when, which the support team asked for.";

const started = Date.now();
const children = [];
let page;
let userData;

function log(message) {
  console.log(`e2e [${((Date.now() - started) / 1000).toFixed(1)}s] ${message}`);
}

function fail(message) {
  throw new Error(message);
}

for (const [what, path, fix] of [
  ["the cairn language server", join(venvBin, "cairn"), "run `make venv` at the repository root"],
  ["code-server", codeServer, "run `make code-server` in editors/vscode"],
  ["the packaged extension", vsix, "run `make package` in editors/vscode"],
  ["Chromium", chromiumPath, "apt-get install chromium"],
]) {
  if (!existsSync(path)) {
    console.error(`e2e: ${what} is missing at ${path}; ${fix}`);
    process.exit(2);
  }
}

async function freePort() {
  return new Promise((ok, ko) => {
    const server = createServer();
    server.once("error", ko);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
  });
}

function run(command, args, options = {}) {
  const result = spawnSync(command, args, { encoding: "utf8", ...options });
  if (result.status !== 0) {
    fail(`${command} ${args.join(" ")} failed (${result.status}): ${result.stderr || result.stdout}`);
  }
  return result.stdout;
}

/** Waits for a locator's condition; on timeout, a screenshot and a message naming the step. */
async function expectVisible(step, locator, timeout = WAIT_MS) {
  try {
    await locator.first().waitFor({ state: "visible", timeout });
  } catch {
    fail(`${step}: not visible within ${timeout / 1000}s`);
  }
}

async function expectGone(step, locator, timeout = WAIT_MS) {
  const deadline = Date.now() + timeout;
  while ((await locator.count()) > 0) {
    if (Date.now() > deadline) {
      fail(`${step}: still present after ${timeout / 1000}s`);
    }
    await page.waitForTimeout(250);
  }
}

/** The centre of `word` inside an editor line (tokens split text across spans). */
async function wordBox(line, word) {
  const box = await line.first().evaluate((element, text) => {
    const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const at = node.textContent.replace(/\u00a0/g, " ").indexOf(text);
      if (at >= 0) {
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + text.length);
        const rect = range.getBoundingClientRect();
        return { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 };
      }
    }
    return null;
  }, word);
  if (!box) fail(`"${word}" is not in one text node of the editor line`);
  return box;
}

async function runCommand(title) {
  const box = page.locator(".quick-input-widget");
  await page.keyboard.press("F1");
  await box.locator("input").first().fill(`>${title}`);
  await expectVisible(`the command '${title}' in the palette`, box.locator(".monaco-list-row", { hasText: title }));
  await page.keyboard.press("Enter");
}

// With CAIRN_DOCS_IMAGES set, these screenshots also become the README's pictures.
const DOCS_IMAGES = { "01-hover": "vscode-hover", "02-warning": "vscode-warning", "03-quick-fix": "vscode-quick-fix", "06-history": "vscode-history" };

async function shot(name) {
  await page.screenshot({ path: join(results, `${name}.png`) });
  log(`screenshot test-results/${name}.png`);
  if (process.env.CAIRN_DOCS_IMAGES && DOCS_IMAGES[name]) {
    copyFileSync(join(results, `${name}.png`), join(repo, "docs", "images", `${DOCS_IMAGES[name]}.png`));
  }
}

function cairnLogTail() {
  // The extension's output channel is persisted by VS Code under the user-data logs.
  const found = [];
  const walk = (dir) => {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/cairn/i.test(name) && name.endsWith(".log")) found.push(path);
    }
  };
  walk(join(userData, "logs"));
  return found.map((f) => `--- ${f}\n${readFileSync(f, "utf8").split("\n").slice(-40).join("\n")}`).join("\n");
}

async function main() {
  rmSync(results, { recursive: true, force: true });
  mkdirSync(results, { recursive: true });
  const tmp = mkdtempSync(join(tmpdir(), "cairn-vscode-e2e-"));
  const workspace = join(tmp, "workspace");
  userData = join(tmp, "user-data");
  const extensions = join(tmp, "extensions");
  mkdirSync(join(userData, "User"), { recursive: true });
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "workbench.welcomePage.walkthroughs.openOnInstall": false,
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "update.mode": "none",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "workbench.enableExperiments": false,
        "git.enabled": false,
        "editor.hover.delay": 150,
        "editor.minimap.enabled": false,
        "chat.commandCenter.enabled": false,
        "window.commandCenter": false,
      },
      null,
      2,
    ),
  );

  log("seeding the sample workspace with the real store");
  const seeded = JSON.parse(
    run(join(venvBin, "python"), [join(here, "e2e", "seed.py"), workspace], { env: { ...process.env, PYTHONSAFEPATH: "1" }, cwd: tmp }),
  );
  // What a user of a checkout does: point the extension at the repository's venv
  // (code-server's extension host takes PATH from a login shell, not from us).
  mkdirSync(join(workspace, ".vscode"));
  writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cairn.serverCommand": join(venvBin, "cairn") }, null, 2));

  const env = {
    ...process.env,
    XDG_CONFIG_HOME: join(tmp, "config"),
    XDG_DATA_HOME: join(tmp, "data"),
  };
  const common = ["--extensions-dir", extensions, "--user-data-dir", userData];
  log("installing the .vsix");
  const installed = run("node", [codeServer, ...common, "--install-extension", vsix], { env });
  if (!/cairn/i.test(installed)) fail(`installing the vsix said: ${installed}`);

  const port = await freePort();
  log(`starting code-server on 127.0.0.1:${port}`);
  const server = spawn(
    "node",
    [
      codeServer,
      ...common,
      "--auth", "none",
      "--disable-telemetry",
      "--disable-update-check",
      "--disable-workspace-trust",
      "--disable-getting-started-override",
      "--bind-addr", `127.0.0.1:${port}`,
      "--config", join(tmp, "code-server.yaml"),
      workspace,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(server);
  let serverOutput = "";
  server.stdout.on("data", (d) => (serverOutput += d));
  server.stderr.on("data", (d) => (serverOutput += d));
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    if (server.exitCode !== null) fail(`code-server exited (${server.exitCode}):\n${serverOutput}`);
    try {
      const response = await fetch(`http://127.0.0.1:${port}/healthz`);
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) fail(`code-server did not answer on port ${port}:\n${serverOutput}`);
    await new Promise((ok) => setTimeout(ok, 200));
  }

  const context = await chromium.launchPersistentContext(join(tmp, "chromium"), {
    executablePath: chromiumPath,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
  children.push({ close: () => context.close() });
  page = context.pages()[0] ?? (await context.newPage());
  page.setDefaultTimeout(WAIT_MS);

  log("opening the workspace");
  await page.goto(`http://127.0.0.1:${port}/?folder=${encodeURIComponent(workspace)}`);
  await expectVisible("the workbench", page.locator(".monaco-workbench .part.editor"));
  await expectVisible("the explorer", page.locator(".explorer-folders-view .monaco-list-row"));

  log("opening db/002_email_verified.sql");
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "db" }).first().click();
  await page.locator(".explorer-folders-view .monaco-list-row", { hasText: "002_email_verified.sql" }).first().click();
  const editor = page.locator(".editor-instance .monaco-editor").first();
  const line = editor.locator(".view-line", { hasText: "ADD COLUMN email_verified" });
  await expectVisible("the migration's text in the editor", line);
  // Recomputed before each use: the code lens shifts the line when it arrives.
  const column = () => wordBox(line, "email_verified");

  log("waiting for the warning squiggle (the server started and published diagnostics)");
  await expectVisible("a warning squiggle on the re-added column", editor.locator(".squiggly-warning"));

  log("hovering the reverted column");
  const hover = page.locator(".monaco-hover", { hasText: "users.email_verified" });
  for (let attempt = 0; attempt < 5 && !(await hover.first().isVisible()); attempt++) {
    await page.mouse.move(5, 5);
    const at = await column();
    await page.mouse.move(at.x, at.y, { steps: 3 });
    try {
      await hover.first().waitFor({ state: "visible", timeout: 5000 });
    } catch {
      // the hover delay raced the mouse; move away and back
    }
  }
  await expectVisible("the hover card for users.email_verified", hover, 1000);
  await expectVisible("the hover naming the revert and its reason", page.locator(".monaco-hover", { hasText: "backfill locked" }));
  await shot("01-hover");

  log("following the hover's Full history link (a trusted command link)");
  await hover.first().locator("a", { hasText: "Full history" }).click();
  const preview = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
  await expectVisible("the history preview opened from the hover", preview.getByText("backfill locked the users table"));
  await page.locator(".tab", { hasText: "002_email_verified.sql" }).first().click();

  const status = page.locator(".statusbar-item", { hasText: /Cairn: 1 reverted/ });
  await expectVisible("the status-bar item counting the reverted entity", status);

  log("opening Problems");
  await page.keyboard.press("Escape");
  await page.keyboard.press("Control+Shift+M");
  const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "email_verified was reverted" });
  await expectVisible("the warning in the Problems panel", problem);
  await shot("02-warning");

  log("raising cairn.severity.introduce to error: the setting reaches the running server");
  writeFileSync(
    join(workspace, ".vscode", "settings.json"),
    JSON.stringify({ "cairn.serverCommand": join(venvBin, "cairn"), "cairn.severity.introduce": "error" }, null, 2),
  );
  await expectVisible("an error squiggle after the severity change", editor.locator(".squiggly-error"));
  await expectGone("the warning squiggle after the severity change", editor.locator(".squiggly-warning"));

  log("running the quick fix");
  const at = await column();
  await page.mouse.click(at.x, at.y);
  await page.keyboard.press("Control+.");
  const fix = page.locator(".action-widget .monaco-list-row", { hasText: "Supersede the revert of users.email_verified" });
  await expectVisible("the quick fix 'Supersede the revert of users.email_verified…'", fix);
  await shot("03-quick-fix");
  // The list takes keys, not clicks (a pointer block covers it while it opens).
  for (let step = 0; step < 10 && !(await fix.first().evaluate((row) => row.classList.contains("focused"))); step++) {
    await page.keyboard.press("ArrowDown");
  }
  await page.keyboard.press("Enter");

  const box = page.locator(".quick-input-widget");
  await expectVisible("the input box asking why the verdict is re-opened", box.filter({ hasText: "why re-open" }));
  await box.locator("input").first().fill(REASON);
  await shot("04-reason");
  await page.keyboard.press("Enter");

  log("waiting for the warning to go");
  await expectGone("the error squiggle", editor.locator(".squiggly-error, .squiggly-warning"));
  await expectGone("the Problems entry", problem);
  // No warning left; the re-opened verdict is still history worth a look (the quiet rule).
  await expectVisible(
    "the status bar with no warning, listing the re-opened history",
    page.locator(".statusbar-item", { hasText: /Cairn: \d+ worth a look/ }),
  );
  await expectVisible("the code lens no longer saying reverted", editor.locator(".codelens-decoration", { hasText: "3 decisions" }));

  log("hovering again: the card shows the revert re-opened");
  await page.keyboard.press("Escape");
  const reopened = page.locator(".monaco-hover", { hasText: "re-opened by" });
  for (let attempt = 0; attempt < 5 && !(await reopened.first().isVisible()); attempt++) {
    await page.mouse.move(5, 5);
    const at = await column();
    await page.mouse.move(at.x, at.y, { steps: 3 });
    try {
      await reopened.first().waitFor({ state: "visible", timeout: 5000 });
    } catch {
      // as above
    }
  }
  await expectVisible("the hover saying the revert was re-opened", reopened, 1000);
  await shot("05-after-fix");

  const events = readFileSync(join(workspace, ".cairn", "decisions.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const supersede = events.find((e) => e.type === "supersede");
  if (!supersede) fail(`no supersede in the log: ${JSON.stringify(events)}`);
  if (supersede.supersedes !== seeded.reverted) fail(`the supersede names ${supersede.supersedes}, not the revert ${seeded.reverted}`);
  if (supersede.reasoning !== REASON) fail(`the supersede's reasoning is ${JSON.stringify(supersede.reasoning)}`);
  if (supersede.entity !== "users.email_verified") fail(`the supersede is on ${supersede.entity}`);

  log("showing the history from the palette");
  const again = await column();
  await page.mouse.click(again.x, again.y);
  await page.keyboard.press("F1");
  await box.locator("input").first().fill(">Cairn: Show history");
  await expectVisible("the 'Cairn: Show history' command", box.locator(".monaco-list-row", { hasText: "Cairn: Show history" }));
  await page.keyboard.press("Enter");
  await expectVisible("the history tab", page.locator(".tab", { hasText: "History: users.email_verified" }));
  await expectVisible("the history view refreshed with the new supersede", preview.getByText(REASON));
  await expectVisible("the rendered history heading", preview.locator("h1", { hasText: "History of" }));
  await shot("06-history");

  log("logging a decision from the palette: a quick pick for the type, a box for the reason");
  await page.locator(".tab", { hasText: "002_email_verified.sql" }).first().click();
  const third = await column();
  await page.mouse.click(third.x, third.y);
  await page.keyboard.press("F1");
  await box.locator("input").first().fill(">Cairn: Log a decision");
  await expectVisible("the 'Cairn: Log a decision…' command", box.locator(".monaco-list-row", { hasText: "Cairn: Log a decision" }));
  await page.keyboard.press("Enter");
  await expectVisible("the decision-type quick pick", box.filter({ hasText: "log a decision on users.email_verified" }).locator(".monaco-list-row", { hasText: "retype" }));
  await box.locator("input").first().fill("retype");
  await page.keyboard.press("Enter");
  await expectVisible("the reason box for the retype", box.filter({ hasText: "why retype users.email_verified" }));
  await box.locator("input").first().fill(RETYPE_REASON);
  await page.keyboard.press("Enter");
  await expectVisible("the lens counting the new decision", editor.locator(".codelens-decoration", { hasText: "4 decisions" }));
  const logged = readFileSync(join(workspace, ".cairn", "decisions.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line))
    .find((e) => e.type === "retype");
  if (!logged || logged.reasoning !== RETYPE_REASON || logged.entity !== "users.email_verified") {
    fail(`the retype was not logged as asked: ${JSON.stringify(logged)}`);
  }

  log("pointing cairn.serverCommand at nothing: the extension says what to fix");
  const missing = join(tmp, "no-such-venv", "bin", "cairn");
  writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cairn.serverCommand": missing }, null, 2));
  const toast = page.locator(".notification-toast", { hasText: "is not an executable file" });
  await expectVisible("the notification naming the bad cairn.serverCommand", toast);
  await expectVisible("the notification's Open Settings button", toast.locator(".monaco-button", { hasText: "Open Settings" }));
  await expectVisible("the status bar showing the server down", page.locator(".statusbar-item", { hasText: /^\s*Cairn\s*$/ }).locator(".codicon-error"));
  await shot("07-server-missing");

  log("a server that exits at once: the extension says it did not start");
  await runCommand("Notifications: Clear All Notifications");
  const quits = join(tmp, "quits");
  writeFileSync(quits, "#!/bin/sh\necho 'cairn: error: simulated start failure' >&2\nexit 3\n", { mode: 0o755 });
  writeFileSync(join(workspace, ".vscode", "settings.json"), JSON.stringify({ "cairn.serverCommand": quits }, null, 2));
  // The client adds notifications of its own at the same moment, and VS Code's spam
  // protection may keep ours from becoming a toast; the centre lists them all.
  const ours = page.locator(".notification-toast, .notifications-center .notification-list-item", {
    hasText: "exited with code 3: cairn: error: simulated start failure",
  });
  const until = Date.now() + WAIT_MS;
  while (!(await ours.first().isVisible())) {
    if (Date.now() > until) fail("the notification with the exit code and the server's last error line: not shown");
    await page.waitForTimeout(1500);
    if (!(await ours.first().isVisible())) await runCommand("Notifications: Show Notifications");
  }
  await shot("08-server-exits");

  log(`passed in ${((Date.now() - started) / 1000).toFixed(1)}s`);
  return tmp;
}

let code = 0;
let scratch;
try {
  scratch = await main();
} catch (error) {
  code = 1;
  console.error(`e2e: FAILED: ${error.message}`);
  if (page) {
    await page.screenshot({ path: join(results, "failure.png") }).catch(() => {});
    const toasts = await page.locator(".notification-toast").allInnerTexts().catch(() => []);
    if (toasts.length > 0) console.error(`e2e: notifications shown:\n  ${toasts.join("\n  ").replace(/\n(?! {2})/g, " ")}`);
    console.error("e2e: screenshot of the failure in test-results/failure.png");
  }
  if (userData) console.error(`e2e: workspace and VS Code logs kept in ${dirname(userData)}\n${cairnLogTail()}`);
} finally {
  for (const child of children.reverse()) {
    try {
      if (child.close) await child.close();
      else process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  }
}
// A failed run keeps its workspace and logs (the message above names them).
if (scratch) rmSync(scratch, { recursive: true, force: true });
process.exit(code);
