use mastra_conform::observe::capture::Listener;
use mastra_conform::observe::probe::{Probe, ProbeCommand, Answer};
use mastra_conform::js::json::Json;
use std::sync::atomic::AtomicBool;
use std::time::Duration;
fn main() {
    let a: Vec<String> = std::env::args().collect();
    let l = Listener::start(1<<20).unwrap();
    let cmd = ProbeCommand { node: a[1].clone().into(), script: "/work/wt/p20/node-probe/probe.mjs".into(), start_timeout: Duration::from_secs(60), sandboxed: true };
    let mut p = Probe::start(&cmd, std::path::Path::new(&a[2]), Some(&l.reach()), &AtomicBool::new(false)).unwrap();
    l.register(1, vec![]); println!("{:?}", l.reach());
    let case = Json::parse(r#"{"tools":["a.b"],"call":{"method":"generate"}}"#).unwrap();
    p.send_run(1, &l.url_for(1), &case).unwrap();
    loop { match p.recv(Duration::from_secs(30)) { Some(Answer::Result{result,..}) => { println!("{}", result.to_compact()); break } Some(x) => println!("{x:?}"), None => break } }
    println!("captured {}", l.take(1).len());
    println!("stderr {}", p.stderr_tail());
}
