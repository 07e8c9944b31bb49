/** The history tab: one webview, re-rendered by VS Code's markdown renderer on every request. */
import * as vscode from "vscode";
import { historyMarkdown } from "./history";

let historyPanel: vscode.WebviewPanel | undefined;

/**
 * One history panel, re-rendered on every request: the built-in markdown renderer, in a
 * webview without scripts (the log's text is data, never code).
 */
export async function showHistory(entity: string, result: unknown): Promise<void> {
  const markdown = historyMarkdown(entity, result);
  let body: string;
  try {
    body = (await vscode.commands.executeCommand<string>("markdown.api.render", markdown)) ?? "";
  } catch {
    body = "";
  }
  if (!body) {
    body = `<pre>${escapeHtml(markdown)}</pre>`;
  }
  if (historyPanel) {
    historyPanel.reveal(undefined, false);
  } else {
    historyPanel = vscode.window.createWebviewPanel("cairn.history", "Cairn history", vscode.ViewColumn.Active, {
      enableScripts: false,
      enableCommandUris: false,
    });
    historyPanel.onDidDispose(() => {
      historyPanel = undefined;
    });
  }
  historyPanel.title = `History: ${entity}`;
  historyPanel.webview.html = historyPage(entity, body);
}

function historyPage(entity: string, body: string): string {
  return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline';">
<title>History of ${escapeHtml(entity)}</title>
<style>
  body { font-family: var(--vscode-markdown-font-family, var(--vscode-font-family)); font-size: var(--vscode-markdown-font-size, 14px);
         color: var(--vscode-foreground); line-height: 1.5; max-width: 60rem; padding: 0 1.5rem; }
  h1, h2 { border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: .3em; }
  h2 { font-size: 1.15em; margin-top: 1.6em; }
  code { font-family: var(--vscode-editor-font-family); background: var(--vscode-textCodeBlock-background); padding: 0 .25em; border-radius: 3px; }
  a { color: var(--vscode-textLink-foreground); }
</style></head>
<body>${body}</body></html>`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
