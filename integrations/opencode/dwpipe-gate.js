// dwpipe's gate inside OpenCode's own loop (and DevEco Code's, built from it).
//
// OpenCode has no stop hook that can refuse "done": a plugin only sees the session go idle.
// This plugin runs `dwpipe hook stop --target opencode` each time a top-level session goes
// idle, and when dwpipe refuses (the change does not pass its verification and audit yet) it
// prompts the session again with dwpipe's reason: the repair brief. dwpipe counts the rounds
// per session and answers by the project's repair limits and review fail mode; since OpenCode,
// unlike Claude Code and Cursor, has no cap of its own on a loop a hook keeps going (and
// `review.fail-mode: closed` keeps refusing), the plugin stops prompting after
// $DWPIPE_LOOP_LIMIT refusals in a row (default 8, Claude Code's cap) and logs it as an error.
// A stop dwpipe lets through unverified is logged as a warning.
//
// Install: copy this file into `.opencode/plugins/` (DevEco Code: `.deveco/plugins/`) of the
// project, or name it in the config's `plugin` list. It runs `dwpipe` from PATH (or
// $DWPIPE_BIN) with `--config $DWPIPE_CONFIG` (default: dwpipe.yaml in the project) and
// `--pack $DWPIPE_PACK` when set.

import { spawn } from "node:child_process";
import path from "node:path";

/** Runs dwpipe with `input` on stdin; resolves with its stdout. */
function gate(program, args, input, cwd) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk) => (stdout += chunk));
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`dwpipe hook stop exited ${code}: ${stderr.trim()}`));
    });
    child.stdin.end(input);
  });
}

export const DwpipeGate = async ({ client, directory }) => {
  const program = process.env.DWPIPE_BIN || "dwpipe";
  const config = process.env.DWPIPE_CONFIG || path.join(directory, "dwpipe.yaml");
  const args = ["hook", "stop", "--target", "opencode", "--config", config];
  if (process.env.DWPIPE_PACK) args.push("--pack", process.env.DWPIPE_PACK);
  // Sessions sent back by dwpipe (so the next stop is one a hook caused), and sessions whose
  // idle was already answered (OpenCode reports one idle both as `session.idle` and as a
  // `session.status` of type idle; a busy status begins the next turn).
  const continuing = new Set();
  const answered = new Set();
  const limit = Number(process.env.DWPIPE_LOOP_LIMIT) > 0 ? Number(process.env.DWPIPE_LOOP_LIMIT) : 8;
  const refusals = new Map();
  const log = (level, message) =>
    client.app.log({ body: { service: "dwpipe-gate", level, message } }).catch(() => {});

  return {
    event: async ({ event }) => {
      const props = event.properties || {};
      if (event.type === "session.status" && props.status && props.status.type === "busy") {
        answered.delete(props.sessionID);
        return;
      }
      const idle =
        event.type === "session.idle" ||
        (event.type === "session.status" && props.status && props.status.type === "idle");
      if (!idle || !props.sessionID || answered.has(props.sessionID)) return;
      const session = props.sessionID;
      answered.add(session);
      // A subagent's session is its parent's business: only top-level sessions are gated.
      const info = await client.session.get({ path: { id: session } }).catch(() => null);
      if (info && info.data && info.data.parentID) return;
      const input = JSON.stringify({ session_id: session, stop_hook_active: continuing.has(session) });
      let answer;
      try {
        answer = JSON.parse(await gate(program, args, input, directory));
      } catch (error) {
        // No answer is no pass: say so, and leave the session as it is.
        await log("error", `the gate did not answer: ${error.message}; the change is unverified`);
        return;
      }
      if (answer.decision === "block") {
        const inRow = (refusals.get(session) || 0) + 1;
        refusals.set(session, inRow);
        if (inRow > limit) {
          await log("error", `dwpipe refused ${inRow} times in a row; not prompting again: ${answer.reason}`);
          return;
        }
        continuing.add(session);
        await client.session.promptAsync({
          path: { id: session },
          body: { parts: [{ type: "text", text: answer.reason }] },
        });
        return;
      }
      continuing.delete(session);
      refusals.delete(session);
      if (answer.systemMessage) await log("warn", answer.systemMessage);
    },
  };
};
