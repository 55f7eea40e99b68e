//! A capture does not depend on the descriptors its caller has open. Its own
//! test binary: the extra descriptor it opens without close-on-exec must not
//! reach another test's capture running beside it.

// Tests report failure by panicking.
#![allow(clippy::panic)]

use std::process::Command;

use vmlab_trace::{capture, read_all, CaptureOptions};

/// The pingpong program (two processes, two pipes) captured with every
/// process, then again with one more descriptor open in this process and
/// not close-on-exec (as make's jobserver pipe or a shell's redirection
/// is): the same events. On main before the capture closed inherited
/// descriptors, the extra one took the number the program's first open
/// gets, and every later descriptor in the markers moved up by one.
#[test]
fn an_inherited_descriptor_does_not_change_the_trace() {
    let dir = tempfile::Builder::new().prefix("vmlab-trace-fds-").tempdir().expect("temp dir");
    if !matches!(Command::new("valgrind").arg("--version").output(), Ok(o) if o.status.success()) {
        eprintln!("SKIPPED: valgrind is not on PATH (install valgrind to run the capture tests)");
        return;
    }
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/pingpong.c");
    let prog = dir.path().join("pingpong");
    let cc = Command::new("cc").args(["-O1", "-o"]).arg(&prog).arg(src).status();
    if !matches!(cc, Ok(s) if s.success()) {
        eprintln!("SKIPPED: no C compiler (cc) to build {src}");
        return;
    }
    let pwd = dir.path().display().to_string();
    let env = [("PATH", "/usr/bin:/bin"), ("LC_ALL", "C"), ("HOME", "/nonexistent"), ("PWD", &pwd), ("LD_PRELOAD", "")]
        .into_iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let opts = CaptureOptions {
        children: true,
        cwd: Some(dir.path().to_path_buf()),
        env: Some(env),
        stdin: Some("/dev/null".into()),
        ..CaptureOptions::default()
    };
    let argv = vec![prog.display().to_string()];
    let plain = dir.path().join("plain.vmt");
    capture(&argv, &plain, &opts, &mut |_| Ok(())).expect("capture");

    let extra = std::fs::File::open("/dev/null").expect("open /dev/null");
    rustix::io::fcntl_setfd(&extra, rustix::io::FdFlags::empty()).expect("clear close-on-exec");
    let with_extra = dir.path().join("extra.vmt");
    capture(&argv, &with_extra, &opts, &mut |_| Ok(())).expect("capture with an extra descriptor");
    drop(extra);

    let (a, b) = (read_all(&plain, None).expect("read"), read_all(&with_extra, None).expect("read"));
    assert!(a.len() > 1000, "{} events", a.len());
    let first_difference = a.iter().zip(&b).position(|(x, y)| x != y);
    assert!(
        a == b,
        "the extra descriptor changed the trace: {} vs {} events, first difference at event {first_difference:?}",
        a.len(),
        b.len()
    );
}
