//! The pattern engine on arbitrary text: no panic; where the pattern compiles, every way of
//! running it agrees (as validation runs it, with skips and the cached DFA; the DFA alone with a
//! tiny cache; the NFA simulation alone), and the work stays linear: at most a constant times
//! the subject's length times the pattern's compiled size, whatever its repetition counts.
//!
//! Input: the pattern, a newline, the subject (both UTF-8).
#![no_main]

use actionseal_core::schema::probe_pattern;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (pattern, subject) = text.split_once('\n').unwrap_or((text, ""));
    let Ok(p) = probe_pattern(pattern, subject) else {
        return;
    };
    assert_eq!(
        (p.matched, p.matched),
        (p.small_cache, p.nfa),
        "{pattern:?} on {subject:?}"
    );
    let bound = 16 * (subject.len() as u64 + 1) * (p.size as u64 + 64);
    assert!(p.work <= bound, "{pattern:?}: {} steps > {bound}", p.work);
});
