//! `ledger show --table`: tasks and a task's history as aligned text for people. Scripts read
//! the JSON (the default); a table leaves out the action's arguments and every document.

use actionseal_core::ledger::Event;
use actionseal_core::rfc3339::format_ms;
use actionseal_ledger::Task;

/// The tasks, one a row, oldest first.
pub(crate) fn tasks(tasks: &[Task]) -> String {
    let rows = tasks.iter().map(|t| {
        vec![
            t.id.clone(),
            t.state.as_str().to_owned(),
            t.tenant.clone(),
            tool(t),
            t.job_id.clone(),
            t.request_id.clone(),
            format_ms(t.created_at),
        ]
    });
    let head = [
        "ID", "STATE", "TENANT", "TOOL", "JOB", "REQUEST", "PROPOSED",
    ];
    render(&head, rows.collect())
}

/// One task: its fields, then its history.
pub(crate) fn task(t: &Task, history: &[Event]) -> String {
    let opt = |s: Option<&str>| s.unwrap_or("-").to_owned();
    let fields = [
        ("id", t.id.clone()),
        ("state", t.state.as_str().to_owned()),
        ("tenant", t.tenant.clone()),
        ("tool", tool(t)),
        ("job", t.job_id.clone()),
        ("request", t.request_id.clone()),
        ("action digest", t.action_digest.to_string()),
        ("amendments", t.amendments.to_string()),
        ("proposer", t.proposer.clone()),
        ("approval", opt(t.approval_id.as_deref())),
        ("fence", t.fence.to_string()),
        ("executor", opt(t.executor.as_deref())),
        ("proposed", format_ms(t.created_at)),
        ("updated", format_ms(t.updated_at)),
    ];
    let fields = fields
        .into_iter()
        .map(|(k, v)| vec![k.to_owned(), v])
        .collect();
    let events = history
        .iter()
        .map(|e| {
            vec![
                format_ms(e.at),
                e.kind.as_str().to_owned(),
                e.actor.clone(),
                opt(e.outcome.as_deref()),
                opt(e.state.map(|s| s.as_str())),
            ]
        })
        .collect();
    format!(
        "{}\n{}",
        render(&["FIELD", "VALUE"], fields),
        render(&["AT", "EVENT", "ACTOR", "OUTCOME", "STATE"], events)
    )
}

/// The tool the task's action calls.
fn tool(t: &Task) -> String {
    let tool = t.action.value().as_object().and_then(|o| o.get("tool"));
    let tool = tool.and_then(|v| v.as_str());
    tool.unwrap_or("-").to_owned()
}

/// Columns padded to their widest cell, two spaces apart; control characters in a cell are
/// shown escaped, so that no stored text can move the cursor or fake a row.
fn render(head: &[&str], rows: Vec<Vec<String>>) -> String {
    let rows: Vec<Vec<String>> = rows
        .into_iter()
        .map(|r| r.iter().map(|c| printable(c)).collect())
        .collect();
    let mut widths: Vec<usize> = head.iter().map(|h| h.chars().count()).collect();
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let head = head.iter().map(|h| h.to_string()).collect();
    for row in std::iter::once(&head).chain(&rows) {
        let mut line = String::new();
        for (i, (cell, w)) in row.iter().zip(&widths).enumerate() {
            if i > 0 {
                line.push_str("  ");
            }
            line.push_str(cell);
            line.extend(std::iter::repeat_n(' ', w - cell.chars().count()));
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn printable(cell: &str) -> String {
    cell.chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::render;

    #[test]
    fn columns_align_and_control_characters_are_escaped() {
        let rows = vec![
            vec!["task_1".into(), "approved".into()],
            vec!["t\u{1b}[2J\n".into(), "-".into()],
        ];
        assert_eq!(
            render(&["ID", "STATE"], rows),
            "ID            STATE\ntask_1        approved\nt\\u{1b}[2J\\n  -\n"
        );
    }
}
