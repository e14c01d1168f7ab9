// A Rust program for the real-programs.rust-* scenarios: Rust's runtime
// installs its own stack-overflow handler only where it finds SIGSEGV and
// SIGBUS at SIG_DFL, and its panics either unwind (exit status 101) or
// abort (SIGABRT).
use std::hint::black_box;
use std::sync::mpsc;
use std::thread;

/// Sums 16 threads' results through a channel, then panics on main.
#[inline(never)]
fn threads_then_panic() {
    let (tx, rx) = mpsc::channel();
    let handles: Vec<_> = (0..16u64)
        .map(|i| {
            let tx = tx.clone();
            thread::spawn(move || tx.send((0..100_000u64).map(|x| x * i).sum::<u64>()).unwrap())
        })
        .collect();
    drop(tx);
    for h in handles {
        h.join().unwrap();
    }
    println!("sum {}", rx.iter().sum::<u64>());
    panic_now();
}

#[inline(never)]
fn panic_now() {
    panic!("victim: boom");
}

#[inline(never)]
#[allow(unconditional_recursion)]
fn recurse(depth: u64) -> u64 {
    let frame = black_box([depth as u8; 4096]);
    recurse(depth + 1) + frame[(depth % 4096) as usize] as u64
}

/// Leaks ten Vecs with mem::forget and three boxed slices with Box::leak
/// (black_box keeps rustc -O from removing the allocations).
#[inline(never)]
fn leak_blocks() {
    for i in 0..10usize {
        std::mem::forget(black_box(vec![i as u8; 3000 + i]));
    }
    for i in 0..3usize {
        let leaked: &'static mut [u8] = Box::leak(black_box(vec![1u8; 5000 + i]).into_boxed_slice());
        black_box(leaked);
    }
    println!("leaked 13 blocks");
}

fn main() {
    match std::env::args().nth(1).as_deref() {
        Some("threads-then-panic") => threads_then_panic(),
        Some("stack-overflow") => println!("{}", recurse(0)),
        Some("leak-blocks") => leak_blocks(),
        other => {
            eprintln!("rust_victim: unknown command {:?}", other);
            std::process::exit(2);
        }
    }
}
