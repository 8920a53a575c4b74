mod link;
fn main() {}
