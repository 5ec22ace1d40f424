//! The Agent Client Protocol as the channel to an agent (`agent.transport: acp` for DevEco
//! Code or OpenCode, `agent.kind: acp` for any other ACP agent): JSON-RPC 2.0, one message a
//! line, over the agent's stdin and stdout, with dwpipe as the client. It opens one session
//! in the workspace, sends the brief as its prompt, and takes the turn's ending from the
//! prompt's answer (`stopReason`) instead of guessing it from a stream. The agent's calls to
//! its client (permissions, file reads and writes) are answered by dwpipe's `policy` and every
//! answer is recorded in `agent-<n>.answers.jsonl`; a call naming a session dwpipe did not
//! open (a subagent's) is answered the same way and marked so. OpenCode's ACP service does
//! not forward a subagent's requests at all (research/agents.md §2): its subagent then waits
//! in silence, the idle watchdog stops it, and the ending names the subagent that was running.

mod client;
mod ending;
mod session;

pub(super) use session::dispatch;
