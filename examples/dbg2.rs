use mastra_conform::observe::proc::CommandSpec;
use mastra_conform::observe::sandbox::{detect, Policy};
fn main() {
    let sb = detect().unwrap();
    let (pol, inside) = Policy::new().read_only("/work/wt/p20/node-probe").listener_socket(std::path::Path::new("/tmp/p20s/s.sock"));
    let spec = sb.wrap(CommandSpec::new("sh").args(["-c", "env; ls -la /run/mastra-conform /; cat /proc/self/status | grep -i cap"]).scrubbed().env("MASTRA_CONFORM_RELAY", &format!("1={inside}")), &pol);
    println!("{spec:?}");
    let out = spec.run_capture();
    match out { Ok(o) => println!("{}", String::from_utf8_lossy(&o.stdout)), Err(e) => println!("{e}") }
}
