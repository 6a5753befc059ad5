// A minimal client: starts `rulerun lsp` over stdio for .rules files.
const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("rulelang").get("command") || "rulerun";
  const server = { command, args: ["lsp"], transport: TransportKind.stdio };
  client = new LanguageClient("rulelang", "rulelang", { run: server, debug: server },
                              { documentSelector: [{ scheme: "file", language: "rulelang" }] });
  client.start();
  context.subscriptions.push({ dispose: () => client && client.stop() });
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
