// dwpipe's gate inside OpenCode's own loop (and DevEco Code's, built from it).
//
// OpenCode has no stop hook that can refuse "done": a plugin only sees the session go idle.
// This plugin runs `dwpipe hook stop --target opencode` each time a top-level session goes
// idle, and when dwpipe refuses (the change does not pass its verification and audit yet) it
// prompts the session again with dwpipe's reason: the repair brief. dwpipe counts the rounds
// per session and answers by the project's repair limits and review fail mode; since OpenCode,
// unlike Claude Code and Cursor, has no cap of its own on a loop a hook keeps going (and
// `review.fail-mode: closed` keeps refusing), the plugin stops prompting after
// $DWPIPE_LOOP_LIMIT refusals in a row (a whole number from 1 to 100; default 8, Claude Code's
// cap) and logs it as an error. A stop dwpipe lets through unverified is logged as a warning.
// dwpipe is given $DWPIPE_GATE_TIMEOUT seconds to answer (default 1800: a gate builds and
// audits on a device); past it, or past 1 MiB of answer, its process group is stopped and the
// change is logged as unverified.
//
// Install: copy this file into `.opencode/plugins/` (DevEco Code: `.deveco/plugins/`) of the
// project, or name it in the config's `plugin` list. It runs `dwpipe` from PATH (or
// $DWPIPE_BIN) with `--config $DWPIPE_CONFIG` (default: dwpipe.yaml in the project) and
// `--pack $DWPIPE_PACK` when set.

import { spawn } from "node:child_process";
import path from "node:path";

/** The most of dwpipe's answer (stdout) and of its stderr the plugin keeps. */
const MAX_OUTPUT = 1024 * 1024;

/**
 * `text` as a whole number from `min` to `max`, else `fallback` (and `said` is told why):
 * `Infinity`, `-1`, `1.5` or a word never become a bound that is no bound.
 */
function wholeNumber(text, min, max, fallback, said) {
  if (text === undefined || text === "") return fallback;
  const value = Number(text);
  if (Number.isSafeInteger(value) && value >= min && value <= max) return value;
  said(`${JSON.stringify(text)} is not a whole number from ${min} to ${max}; ${fallback} is used`);
  return fallback;
}

/**
 * Runs dwpipe with `input` on stdin, in a process group of its own; resolves with its stdout.
 * Past `timeoutMs`, or past MAX_OUTPUT of output, the group is stopped (SIGTERM, then SIGKILL
 * 5 s later) and the promise rejects saying so.
 */
function gate(program, args, input, cwd, timeoutMs) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, { cwd, stdio: ["pipe", "pipe", "pipe"], detached: true });
    let stdout = "";
    let stderr = "";
    let stopped = null;
    const stop = (why) => {
      if (stopped) return;
      stopped = why;
      const group = (signal) => {
        try {
          process.kill(-child.pid, signal);
        } catch {
          // Already gone.
        }
      };
      group("SIGTERM");
      setTimeout(() => group("SIGKILL"), 5000).unref();
    };
    const timer = setTimeout(
      () => stop(`dwpipe did not answer within ${timeoutMs / 1000} s (DWPIPE_GATE_TIMEOUT)`),
      timeoutMs,
    );
    const keep = (sofar, chunk) => {
      if (sofar.length + chunk.length > MAX_OUTPUT) {
        stop(`dwpipe printed more than ${MAX_OUTPUT} bytes`);
        return sofar;
      }
      return sofar + chunk;
    };
    child.stdout.on("data", (chunk) => (stdout = keep(stdout, chunk)));
    child.stderr.on("data", (chunk) => (stderr = keep(stderr, chunk)));
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      if (stopped) reject(new Error(stopped));
      else if (code === 0) resolve(stdout);
      else reject(new Error(`dwpipe hook stop exited ${code}: ${stderr.trim()}`));
    });
    child.stdin.on("error", () => {});
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
  const refusals = new Map();
  const log = (level, message) =>
    client.app.log({ body: { service: "dwpipe-gate", level, message } }).catch(() => {});
  const limit = wholeNumber(process.env.DWPIPE_LOOP_LIMIT, 1, 100, 8, (why) =>
    log("warn", `DWPIPE_LOOP_LIMIT: ${why}`),
  );
  const timeoutMs =
    1000 *
    wholeNumber(process.env.DWPIPE_GATE_TIMEOUT, 1, 86400, 1800, (why) =>
      log("warn", `DWPIPE_GATE_TIMEOUT: ${why}`),
    );

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
        answer = JSON.parse(await gate(program, args, input, directory, timeoutMs));
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
