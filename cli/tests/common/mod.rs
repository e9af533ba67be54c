//! What the command line's tests share: running `actionseal` with arguments and stdin, a fresh
//! scratch directory, files written into it, and the refund example's files. Each test binary
//! uses a part of it.
#![allow(dead_code)]

use std::ffi::OsStr;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

/// Runs `actionseal` with `args`, `stdin` on its standard input.
pub fn run<S: AsRef<OsStr>>(args: &[S], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_actionseal"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn actionseal");
    // The command may exit before reading everything (size limit); a broken pipe is fine.
    let _ = child.stdin.take().unwrap().write_all(stdin);
    child.wait_with_output().unwrap()
}

/// Runs `actionseal` with `args` and without the environment its ledger commands read (the
/// database, the log key, the time-stamping authority), so that a shell's settings cannot
/// change what a test sees.
pub fn run_clean(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_actionseal"))
        .args(args)
        .env_remove("ACTIONSEAL_LEDGER")
        .env_remove("ACTIONSEAL_LOG_KEY")
        .env_remove("ACTIONSEAL_TSA")
        .env_remove("ACTIONSEAL_TSA_ROOT")
        .env_remove("ACTIONSEAL_TSA_POLICY")
        .output()
        .expect("spawn actionseal")
}

/// An empty directory of this process named for `name` (emptied if a run left it).
pub fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("actionseal-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `text` to `path` and gives the path as an argument.
pub fn write(path: &Path, text: &str) -> String {
    std::fs::write(path, text).unwrap();
    path.display().to_string()
}

/// The path of a file of the refund example (`examples/refund/`).
pub fn example(file: &str) -> String {
    format!("{}/../examples/refund/{file}", env!("CARGO_MANIFEST_DIR"))
}
