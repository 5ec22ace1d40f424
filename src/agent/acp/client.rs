//! dwpipe's side of an ACP conversation, fed line by line from the agent's stdout: replies to
//! dwpipe's requests go to whoever waits for them; the agent's requests are answered at once
//! by the [policy](super::super::policy) and recorded; `session/update` notifications tell
//! the tool calls (and which the agent's own configuration withheld), the subagent tasks
//! under way and the agent's messages, where its claim is found.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::Path;

use serde_json::{Value, json};
use tokio::sync::oneshot;

use crate::process::{Cancel, Line, NotSent, Pipe, StdinSender};

use super::super::deveco::refused_permission;
use super::super::policy::{Answer, Decision, Workspace, decide};
use super::super::{Claim, MAX_TOOLS, last_claim};

/// The largest file dwpipe reads for the agent.
const READ_LIMIT: u64 = 16 * 1024 * 1024;
/// Agent message text kept to find the claim in (the latest).
const MESSAGE_KEPT: usize = 64 * 1024;
/// Descriptions kept of each kind; counts go on.
const KEPT: usize = 20;
/// Answers recorded at most (each is counted): an agent that floods requests does not grow
/// dwpipe's memory or its record without bound.
pub(super) const MAX_ANSWERS: usize = 10_000;
/// Paths recorded per answer at most (the policy reads them all).
const MAX_PATHS: usize = 20;
/// The most bytes of dwpipe's messages the agent may leave unread on its stdin (a file it
/// asked for is at most [`READ_LIMIT`], escaped): past it, the agent has stopped reading.
pub(super) const MAX_UNREAD: usize = 64 * 1024 * 1024;

/// What is known of one tool call.
#[derive(Debug, Default)]
struct Call {
    /// Its first title (OpenCode's: the tool's name).
    title: String,
    /// The tool the agent's own configuration withheld, when the call was answered by
    /// OpenCode's `invalid` tool instead.
    withheld: Option<String>,
}

/// A reply to one of dwpipe's requests: its result, or the error's message.
type Reply = Result<Value, String>;

/// dwpipe's side of the conversation, fed line by line from the agent's stdout.
#[derive(Default)]
pub(super) struct Client {
    /// Writes to the agent's stdin; `None` once closed.
    pub(super) sender: Option<StdinSender>,
    /// Stops the agent: an agent that leaves dwpipe's replies unread is not talked to further.
    pub(super) stop: Option<Cancel>,
    /// How many bytes of replies the agent had left unread when it was stopped for it.
    pub(super) unread: Option<usize>,
    next_id: u64,
    pending: HashMap<u64, oneshot::Sender<Reply>>,
    /// The session dwpipe opened.
    pub(super) session: Option<String>,
    workspace: Workspace,
    pub(super) answers: Vec<Answer>,
    /// Every request answered, and those not allowed (the record keeps the first ones).
    pub(super) answered: usize,
    pub(super) refused: usize,
    /// Sessions that asked something and that dwpipe did not open (the first ones; each
    /// answer still names its own).
    pub(super) strangers: BTreeSet<String>,
    /// Tool calls by id.
    calls: HashMap<String, Call>,
    /// Subagent tasks under way: id → title.
    pub(super) tasks: BTreeMap<String, String>,
    /// Tool calls dwpipe denied (their failure is dwpipe's, not the agent's configuration's).
    denied_calls: HashSet<String>,
    pub(super) denied: Vec<String>,
    pub(super) rejected: Vec<String>,
    /// The agent's current message, for its claim.
    message: String,
    pub(super) claim: Option<Claim>,
    pub(super) tools: Vec<String>,
    pub(super) messages: usize,
    pub(super) unparsed: usize,
    pub(super) unreadable: usize,
}

impl Client {
    pub(super) fn new(sender: StdinSender, workspace: &Path) -> Client {
        Client {
            sender: Some(sender),
            stop: None,
            unread: None,
            next_id: 1,
            pending: HashMap::new(),
            session: None,
            workspace: Workspace::new(workspace),
            answers: Vec::new(),
            answered: 0,
            refused: 0,
            strangers: BTreeSet::new(),
            calls: HashMap::new(),
            tasks: BTreeMap::new(),
            denied_calls: HashSet::new(),
            denied: Vec::new(),
            rejected: Vec::new(),
            message: String::new(),
            claim: None,
            tools: Vec::new(),
            messages: 0,
            unparsed: 0,
            unreadable: 0,
        }
    }

    fn send(&mut self, message: &Value) {
        let Some(sender) = &self.sender else {
            return;
        };
        let mut line = message.to_string();
        line.push('\n');
        if let Err(NotSent::Unread(unread)) = sender.send(line.into_bytes()) {
            // The agent stopped reading its input: the run ends as stalled, said so.
            self.unread = Some(unread);
            self.sender = None;
            if let Some(stop) = &self.stop {
                stop.cancel();
            }
        }
    }

    /// Sends a request; the receiver gets its reply.
    pub(super) fn request(&mut self, method: &str, params: Value) -> oneshot::Receiver<Reply> {
        let id = self.next_id;
        self.next_id += 1;
        let (reply, replied) = oneshot::channel();
        self.pending.insert(id, reply);
        let mut request = json!({"jsonrpc": "2.0", "id": id, "method": method});
        request["params"] = params;
        self.send(&request);
        replied
    }

    /// One line of the agent's output.
    pub(super) fn line(&mut self, line: Line<'_>) {
        if line.pipe != Pipe::Out || line.text.trim().is_empty() {
            return;
        }
        if line.cut {
            // A message past the line bound cannot be read whole, and the conversation cannot
            // go on without it: the agent is stopped at once (its windows are not kept).
            if self.unreadable == 0
                && let Some(stop) = &self.stop
            {
                stop.cancel();
            }
            self.unreadable += 1;
            return;
        }
        let Ok(message) = serde_json::from_str::<Value>(line.text.trim()) else {
            self.unparsed += 1;
            return;
        };
        self.messages += 1;
        match (message.get("id"), message["method"].as_str()) {
            (Some(id), Some(method)) => self.answer(id, method, &message["params"]),
            (None, Some("session/update")) => self.update(&message["params"]),
            (Some(id), None) => {
                let Some(reply) = id.as_u64().and_then(|id| self.pending.remove(&id)) else {
                    return;
                };
                let _ = reply.send(match message.get("error") {
                    Some(error) => Err(error["message"]
                        .as_str()
                        .map_or_else(|| error.to_string(), str::to_owned)),
                    None => Ok(message["result"].clone()),
                });
            }
            _ => {}
        }
    }

    /// A `session/update` notification: tool calls, subagent tasks, the agent's messages.
    /// Only the session dwpipe opened speaks for the agent: another session's messages (a
    /// subagent's, or one the agent made up) never feed its claim.
    fn update(&mut self, params: &Value) {
        let update = &params["update"];
        let kind = update["sessionUpdate"].as_str().unwrap_or("");
        let own = self.session.is_some() && params["sessionId"].as_str() == self.session.as_deref();
        if kind == "agent_message_chunk" && !own {
            if let Some(session) = params["sessionId"].as_str()
                && self.strangers.len() < KEPT
            {
                self.strangers.insert(session.to_owned());
            }
            return;
        }
        if kind == "agent_message_chunk" {
            if let Some(text) = update["content"]["text"].as_str() {
                self.message.push_str(text);
                if self.message.len() > MESSAGE_KEPT {
                    let mut cut = self.message.len() - MESSAGE_KEPT / 2;
                    while !self.message.is_char_boundary(cut) {
                        cut += 1;
                    }
                    self.message.drain(..cut);
                }
                if let Some(claim) = last_claim(&self.message) {
                    self.claim = Some(claim);
                }
            }
            return;
        }
        self.message.clear();
        if kind != "tool_call" && kind != "tool_call_update" {
            return;
        }
        let Some(id) = update["toolCallId"].as_str() else {
            return;
        };
        let title = update["title"].as_str();
        if kind == "tool_call" && self.tools.len() < MAX_TOOLS {
            self.tools.push(title.unwrap_or("?").to_owned());
        }
        // Calls under way are tracked up to a bound (an agent that never ends its calls does
        // not grow dwpipe's memory without one).
        if !self.calls.contains_key(id) && self.calls.len() >= MAX_ANSWERS {
            return;
        }
        let call = self.calls.entry(id.to_owned()).or_insert_with(|| Call {
            title: title.unwrap_or("a tool").to_owned(),
            withheld: None,
        });
        // The agent's own configuration withheld the tool: OpenCode answers with `invalid`,
        // naming the tool that was wanted.
        if title == Some("invalid") {
            let wanted = update["rawInput"]["tool"].as_str().unwrap_or("a tool");
            call.withheld = Some(wanted.to_owned());
        }
        // OpenCode names a subagent's call `task` first, then retitles it with its description.
        if kind == "tool_call" && title == Some("task") {
            self.tasks.insert(id.to_owned(), "task".to_owned());
        }
        if let (Some(task), Some(title)) = (self.tasks.get_mut(id), title) {
            title.clone_into(task);
        }
        let status = update["status"].as_str();
        if !matches!(status, Some("completed" | "failed")) {
            return;
        }
        self.tasks.remove(id);
        // A finished call is forgotten: what it showed is folded in below.
        let Some(call) = self.calls.remove(id) else {
            return;
        };
        if let Some(wanted) = call.withheld {
            self.reject(format!("{wanted} (not available to the agent)"));
            return;
        }
        if status == Some("failed")
            && !self.denied_calls.contains(id)
            && refused_permission(update["rawOutput"]["error"].as_str())
        {
            self.reject(call.title);
        }
    }

    fn reject(&mut self, tool: String) {
        if self.rejected.len() < KEPT && !self.rejected.contains(&tool) {
            self.rejected.push(tool);
        }
    }

    /// A request from the agent, answered at once by the policy.
    fn answer(&mut self, id: &Value, method: &str, params: &Value) {
        let session = params["sessionId"].as_str().map(str::to_owned);
        let own_session = session.is_some() && session == self.session;
        if let (Some(session), false) = (&session, own_session)
            && self.strangers.len() < KEPT
        {
            self.strangers.insert(session.clone());
        }
        let mut answer = Answer {
            method: method.to_owned(),
            session,
            own_session,
            tool: None,
            kind: None,
            paths: Vec::new(),
            answer: "allowed",
            option: None,
            why: None,
        };
        let reply = match method {
            "session/request_permission" => self.permission(params, &mut answer),
            "fs/read_text_file" | "fs/write_text_file" => self.file(method, params, &mut answer),
            _ => {
                answer.answer = "unsupported";
                Err((-32601, format!("dwpipe does not serve `{method}`")))
            }
        };
        if let Err((_, why)) = &reply {
            if answer.answer == "allowed" {
                answer.answer = "denied";
            }
            answer.why = Some(why.clone());
        }
        let message = match reply {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err((code, why)) => {
                json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": why}})
            }
        };
        self.send(&message);
        self.answered += 1;
        if answer.answer != "allowed" {
            self.refused += 1;
        }
        if self.answers.len() < MAX_ANSWERS {
            answer.paths.truncate(MAX_PATHS);
            self.answers.push(answer);
        }
    }

    /// `session/request_permission`: an option of the kind the policy decides.
    fn permission(&mut self, params: &Value, answer: &mut Answer) -> Result<Value, (i64, String)> {
        let call = &params["toolCall"];
        let kind = call["kind"].as_str().unwrap_or("other").to_owned();
        let title = call["title"].as_str().unwrap_or("a tool").to_owned();
        answer.paths = call["locations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|l| l["path"].as_str().map(str::to_owned))
            .collect();
        let decision = decide(&self.workspace, &kind, &answer.paths);
        let wanted = match &decision {
            Decision::Allow => ["allow_once", "allow_always"],
            Decision::Deny(_) => ["reject_once", "reject_always"],
        };
        let options = params["options"].as_array().map_or(&[][..], Vec::as_slice);
        let option = wanted.iter().find_map(|kind| {
            options
                .iter()
                .find(|o| o["kind"] == *kind)
                .and_then(|o| o["optionId"].as_str())
        });
        answer.option = option.map(str::to_owned);
        answer.tool = Some(title.clone());
        answer.kind = Some(kind.clone());
        if let Decision::Deny(why) = &decision {
            answer.answer = "denied";
            answer.why = Some(why.clone());
            if let Some(id) = call["toolCallId"].as_str() {
                self.denied_calls.insert(id.to_owned());
            }
            if self.denied.len() < KEPT {
                self.denied.push(format!("{kind} `{title}`: {why}"));
            }
        }
        Ok(match option {
            Some(id) => json!({"outcome": {"outcome": "selected", "optionId": id}}),
            // No option of the kind wanted: the request is cancelled, never granted.
            None => json!({"outcome": {"outcome": "cancelled"}}),
        })
    }

    /// `fs/read_text_file` and `fs/write_text_file`, inside the workspace only.
    fn file(
        &mut self,
        method: &str,
        params: &Value,
        answer: &mut Answer,
    ) -> Result<Value, (i64, String)> {
        let path = params["path"].as_str().unwrap_or("");
        answer.paths = vec![path.to_owned()];
        let kind = if method == "fs/read_text_file" {
            "read"
        } else {
            "edit"
        };
        if let Decision::Deny(why) = decide(&self.workspace, kind, &answer.paths) {
            if self.denied.len() < KEPT {
                self.denied.push(format!("{method} `{path}`: {why}"));
            }
            return Err((-32000, format!("denied by dwpipe's policy: {why}")));
        }
        let real = self
            .workspace
            .resolve(path)
            .ok_or((-32602, format!("{path} cannot be resolved")))?;
        if kind == "edit" {
            let content = params["content"].as_str().unwrap_or("");
            crate::output::write_atomic(&real, content.as_bytes())
                .map_err(|e| (-32000, e.to_string()))?;
            return Ok(json!({}));
        }
        let bytes = crate::input::read_bounded(&real, READ_LIMIT, "a file the agent asked for")
            .map_err(|e| (-32000, e.to_string()))?;
        let text = String::from_utf8_lossy(&bytes);
        let first = params["line"].as_u64().unwrap_or(1).max(1) as usize;
        let limit = params["limit"].as_u64().map_or(usize::MAX, |l| l as usize);
        let content: String = text
            .split_inclusive('\n')
            .skip(first - 1)
            .take(limit)
            .collect();
        Ok(json!({"content": content}))
    }
}

#[cfg(test)]
mod tests;
