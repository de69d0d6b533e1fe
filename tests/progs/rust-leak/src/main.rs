// rust-leak: a Rust program that leaks what it forgets (20 Vecs of
// 1000 bytes, std::mem::forget), among what it frees: a Vec made by a
// function named like an allocator, and a HashMap (hashbrown's table).
// The tests find the lines by their marks.
use std::collections::HashMap;

#[inline(never)]
fn leak_records(n: usize) {
    for k in 0..n {
        let v: Vec<u8> = vec![k as u8 + 1; 1000]; // LEAK
        std::mem::forget(v);
    }
}

#[inline(never)]
fn make_allocator(n: usize) -> usize {
    let mut v: Vec<u64> = Vec::with_capacity(n); // ALLOCATOR
    v.push(1);
    v.capacity()
}

#[inline(never)]
fn count_words(text: &str) -> usize {
    let mut m = HashMap::new();
    for w in text.split(' ') {
        *m.entry(w).or_insert(0) += 1; // MAP
    }
    m.len()
}

fn main() {
    leak_records(20);
    let c = make_allocator(64);
    let w = count_words("a b c d e f g h a b c d e f g h i j k l m n o p");
    std::process::exit(if c == 64 && w == 16 { 0 } else { 1 });
}
