//! Captures a real-program trace for the benchmarks: capture OUT.vmt -- CMD...
use std::path::Path;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(sep) = args.iter().position(|a| a == "--") else {
        eprintln!("usage: capture OUT.vmt -- CMD ARGS...");
        std::process::exit(2);
    };
    let (out, cmd) = (&args[0], &args[sep + 1..]);
    let opts = vmlab_trace::CaptureOptions::default();
    match vmlab_trace::capture(cmd, Path::new(out), &opts, &mut |n| {
        eprint!("\r{:>6} M references", n >> 20);
        Ok(())
    }) {
        Ok(s) => eprintln!("\r{} references in {:.1} s -> {}", s.events, s.seconds, out),
        Err(e) => {
            eprintln!("capture: error: {e}");
            std::process::exit(2);
        }
    }
}
