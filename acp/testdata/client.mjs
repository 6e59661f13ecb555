// An editor's side of ACP, on the reference client library: drives
// `myclaw acp` through the flows its users rely on and exits non-zero,
// saying what went wrong, if one breaks.
//
// Usage: node client.mjs SDK_ENTRY MYCLAW WORKSPACE
import { spawn } from "node:child_process";
import { Readable, Writable } from "node:stream";
import { pathToFileURL } from "node:url";
import fs from "node:fs";
import path from "node:path";

const [sdkEntry, bin, ws] = process.argv.slice(2);
const acp = await import(pathToFileURL(sdkEntry).href);
const { methods } = acp;
const file = path.join(ws, "notes.txt");

function check(cond, what, detail) {
  if (!cond) {
    console.error("FAIL: " + what + (detail === undefined ? "" : "\n" + JSON.stringify(detail, null, 2)));
    process.exit(1);
  }
  console.log("ok: " + what);
}
const read = () => fs.readFileSync(file, "utf8");

const child = spawn(bin, ["acp"], { stdio: ["pipe", "pipe", "inherit"] });
const exited = new Promise((resolve) => child.on("exit", (code, signal) => resolve({ code, signal })));

const updates = [];
let onPermission = null;
const app = acp
  .client({ name: "myclaw-e2e" })
  .onRequest(methods.client.session.requestPermission, (cx) => onPermission(cx.params, cx))
  .onNotification(methods.client.session.update, (cx) => {
    updates.push(cx.params.update);
  });

const stream = acp.ndJsonStream(Writable.toWeb(child.stdin), Readable.toWeb(child.stdout));
await app.connectWith(stream, async (cx) => {
  const init = await cx.request(methods.agent.initialize, {
    protocolVersion: acp.PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
  });
  check(init.agentCapabilities.loadSession === true, "initialize offers session/load", init);
  check(Array.isArray(init.authMethods) && init.authMethods.length === 0, "no auth methods", init);

  const s = await cx.request(methods.agent.session.new, { cwd: ws, mcpServers: [] });
  const sessionId = s.sessionId;
  const modeIds = s.modes.availableModes.map((m) => m.id);
  check(["ask", "auto-edit", "full"].every((m) => modeIds.includes(m)) && s.modes.currentModeId === "ask", "modes are the autonomy levels, ask first", s.modes);

  const prompt = (text) => cx.request(methods.agent.session.prompt, { sessionId, prompt: [{ type: "text", text }] });
  const callUpdates = (id) => updates.filter((u) => (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") && u.toolCallId === id);
  const lastStatus = (id) => callUpdates(id).map((u) => u.status).filter(Boolean).pop();

  // Reject with a reason: nothing written; the reason is the next prompt.
  let asked = null;
  onPermission = (params) => {
    asked = params;
    return { outcome: { outcome: "selected", optionId: "reject_with_reason" } };
  };
  let r = await prompt("edit the file");
  check(asked !== null, "the write asks with session/request_permission");
  const diff = asked.toolCall.content.find((c) => c.type === "diff");
  check(diff && diff.path === file && diff.oldText === "hello\n" && diff.newText === "goodbye\n", "the request carries the dry run as ACP diff content", asked.toolCall);
  const ids = asked.options.map((o) => o.optionId);
  check(ids.includes("allow_once") && ids.includes("reject") && ids.includes("reject_with_reason"), "allow once, reject and reject with a reason are offered", asked.options);
  check(r.stopReason === "end_turn", "the turn ends to wait for the reason", r);
  check(read() === "hello\n", "rejected: the file is unchanged");
  check(lastStatus(asked.toolCall.toolCallId) === "failed", "the rejected call's card ends failed", callUpdates(asked.toolCall.toolCallId));
  r = await prompt("keep the greeting friendly");
  check(r.stopReason === "end_turn", "the reason is sent as the next prompt", r);

  // Allow once: the file changes; /undo restores it.
  onPermission = (params) => {
    asked = params;
    return { outcome: { outcome: "selected", optionId: "allow_once" } };
  };
  r = await prompt("edit the file");
  check(read() === "goodbye\n", "allowed: the file changed");
  check(lastStatus(asked.toolCall.toolCallId) === "completed", "the allowed call's card ends completed", callUpdates(asked.toolCall.toolCallId));
  const cmds = updates.filter((u) => u.sessionUpdate === "available_commands_update").pop();
  check(cmds && ["undo", "redo", "compact", "diff"].every((n) => cmds.availableCommands.some((c) => c.name === n)), "slash commands are announced", cmds);
  r = await prompt("/undo");
  check(r.stopReason === "end_turn" && read() === "hello\n", "/undo restored the file", r);

  // Cancel while the permission is pending: resolved as cancelled, nothing runs.
  onPermission = async (params) => {
    asked = params;
    await cx.notify(methods.agent.session.cancel, { sessionId });
    return { outcome: { outcome: "cancelled" } };
  };
  r = await prompt("edit the file");
  check(r.stopReason === "cancelled", "the cancelled turn stops as cancelled", r);
  check(read() === "hello\n", "cancelled: the file is unchanged");
  check(lastStatus(asked.toolCall.toolCallId) === "failed", "the cancelled call's card ends failed", callUpdates(asked.toolCall.toolCallId));

  // Full: no request; the card names the level that allowed it.
  await cx.request(methods.agent.session.setMode, { sessionId, modeId: "full" });
  let askedInFull = false;
  onPermission = () => {
    askedInFull = true;
    return { outcome: { outcome: "selected", optionId: "reject" } };
  };
  const before = updates.length;
  r = await prompt("edit the file");
  check(!askedInFull && read() === "goodbye\n", "under full the write runs without asking");
  const named = updates.slice(before).some((u) => u.sessionUpdate === "tool_call_update" && JSON.stringify(u.content || []).includes("level: full"));
  check(named, "the call's card names the level that allowed it", updates.slice(before));
});
child.stdin.end();
const { code, signal } = await exited;
check(code === 0, "myclaw exits when stdin closes", { code, signal });
