//! Flow steps as written, typed or refused with the reason.

use std::collections::BTreeMap;
use std::time::Duration;

use serde_saphyr::Spanned;

use super::validate::{DEFAULT_WAIT, MAX_STEPS, step, valid_flow_name};
use super::*;

fn parse(yaml: &str) -> Result<FlowStep, String> {
    let doc: FlowStepDoc = serde_saphyr::from_str(yaml).map_err(|e| e.to_string())?;
    step(&doc, false).map_err(|e| e.message)
}

#[test]
fn every_step_kind_parses_into_its_action() {
    let rows: &[(&str, &str)] = &[
        ("click: \"id:note_item_1\"", "click: id:note_item_1"),
        ("double-click: \"text:Edit\"", "double-click: text:Edit"),
        (
            "long-click: \"type:Button[2]\"",
            "long-click: type:Button[2]",
        ),
        (
            "wait-for: { target: \"id:editor_title\", timeout: 3s }",
            "wait-for: id:editor_title",
        ),
        ("wait-gone: \"id:spinner\"", "wait-gone: id:spinner"),
        (
            "input: { target: \"id:t\", text: \"Groceries 2\" }",
            "input: 'Groceries 2' into id:t",
        ),
        (
            "swipe: { on: \"id:list\", direction: up, distance: 300vp }",
            "swipe up on id:list",
        ),
        (
            "fling: { from: \"id:a\", to: \"id:b\" }",
            "fling from id:a to id:b",
        ),
        (
            "scroll-until: { target: \"text:Archive\", on: \"id:list\", max-swipes: 5 }",
            "scroll-until: text:Archive on id:list",
        ),
        ("press: back", "press: Back"),
        ("press: enter", "press: 2054"),
        ("sleep: 500ms", "sleep: 500 ms"),
    ];
    for (yaml, shown) in rows {
        assert_eq!(parse(yaml).unwrap().action.to_string(), *shown, "{yaml}");
    }
    let wait = parse("wait-for: { target: \"id:x\", timeout: 3s }").unwrap();
    assert_eq!(wait.timeout, Duration::from_secs(3));
    assert_eq!(parse("wait-for: \"id:x\"").unwrap().timeout, DEFAULT_WAIT);
    let named = parse("{ click: \"id:btn_save\", name: save, timeout: 4s }").unwrap();
    assert_eq!(
        (named.name.as_deref(), named.timeout),
        (Some("save"), Duration::from_secs(4))
    );
}

#[test]
fn refuses_what_cannot_run_with_the_reason() {
    let rows: &[(&str, &str)] = &[
        ("{}", "no action"),
        ("{ click: \"id:a\", press: back }", "more than one action"),
        ("tap: \"id:a\"", "unknown field"),
        ("click: \"name:save\"", "selector"),
        (
            "input: { target: \"id:t\", text: \"rm -rf /; echo\" }",
            "`/`",
        ),
        ("input: { target: \"id:t\", text: \"it's\" }", "`'`"),
        ("swipe: { on: \"id:l\", from: \"id:a\" }", "either `on`"),
        ("swipe: { on: \"id:l\", distance: 3cm }", "length in vp"),
        ("press: reboot", "not a key"),
        ("sleep: forever", "sleep"),
        ("{ sleep: 1s, timeout: 2s }", "means nothing"),
        (
            "wait-for: { target: \"id:x\", timeout: 10m }",
            "longer than",
        ),
        ("launch: cold", "only be the flow's first"),
        (
            "scroll-until: { target: \"id:a\", on: \"id:b\", max-swipes: 0 }",
            "between 1 and 50",
        ),
    ];
    for (yaml, expected) in rows {
        let message = parse(yaml).unwrap_err();
        assert!(message.contains(expected), "{yaml}: {message}");
    }
    let doc: FlowStepDoc = serde_saphyr::from_str("click: \"id:a\"").unwrap();
    assert!(
        step(&doc, true)
            .unwrap_err()
            .message
            .contains("not `launch`")
    );
}

#[test]
fn a_step_is_named_by_name_or_by_its_one_based_number() {
    let docs: BTreeMap<String, Vec<Spanned<FlowStepDoc>>> = serde_saphyr::from_str(
        "open-note:\n  - launch: cold\n  - { click: \"id:n\", name: open }\n",
    )
    .unwrap();
    let (flows, errors) = flows(&docs);
    assert!(errors.is_empty());
    let flow = &flows["open-note"];
    assert_eq!(flow.step(&StepRef::Name("open".into())), Some(1));
    assert_eq!(flow.step(&StepRef::Index(2)), Some(1));
    assert_eq!(flow.step(&StepRef::Index(0)), None);
    assert_eq!(flow.step(&StepRef::Index(3)), None);
    assert!(valid_flow_name("open-note") && !valid_flow_name("Open note"));
    let long = format!(
        "long:\n  - launch: cold\n{}",
        "  - sleep: 1ms\n".repeat(MAX_STEPS)
    );
    let docs: BTreeMap<String, Vec<Spanned<FlowStepDoc>>> = serde_saphyr::from_str(&long).unwrap();
    let (flows, errors) = super::flows(&docs);
    assert!(flows.is_empty());
    assert!(
        errors[0].2.message.contains("more than 100"),
        "{:?}",
        errors[0].2
    );
}
