fn main() {
    let text: String = (0..70).map(|i| format!("  \"line {i}\": \"some value here {i}\",\n")).collect();
    let svg = turnpost::engine::svg::text_picture("Kasino", &text);
    let _ = turnpost::notify::picture::font_faces();
    let t = std::time::Instant::now();
    for _ in 0..100 { let _ = turnpost::notify::picture::png(&svg).unwrap(); }
    println!("{:?} per picture", t.elapsed() / 100);
}
