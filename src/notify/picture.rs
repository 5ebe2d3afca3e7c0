//! Board pictures for email. Mail clients do not show SVG, so the seat's picture (always
//! drawn from that seat's view by the game) is rasterised to PNG with resvg and attached
//! inline. The system fonts are read into memory once per process (left as file
//! references, every text run would read its font file again); the pictures ask for
//! DejaVu Sans, and the generic families point at whatever sans-serif and monospace fonts
//! exist, so text is drawn even where DejaVu is missing.
//!
//! Pictures are drawn at their own size (600 px wide): mail clients scale them to the
//! column, which on a phone is narrower still, and a 600 px text-heavy picture is a tenth
//! of the bytes of a 1200 px one and several times quicker to draw and compress.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia;
use resvg::usvg::{self, fontdb};

/// Pixels per picture unit.
pub const SCALE: f32 = 1.0;
/// At most this many pixels: a very tall picture is drawn at a smaller scale instead.
const MAX_PIXELS: f32 = 2_000_000.0;

const SANS: [&str; 5] = [
    "DejaVu Sans",
    "Liberation Sans",
    "Noto Sans",
    "Arial",
    "Verdana",
];
const MONO: [&str; 4] = [
    "DejaVu Sans Mono",
    "Liberation Mono",
    "Noto Sans Mono",
    "Courier New",
];

fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut system = fontdb::Database::new();
            system.load_system_fonts();
            let mut files: Vec<std::path::PathBuf> = system
                .faces()
                .filter_map(|f| match &f.source {
                    fontdb::Source::File(path) => Some(path.clone()),
                    _ => None,
                })
                .collect();
            files.sort();
            files.dedup();
            let mut db = fontdb::Database::new();
            for path in files {
                match std::fs::read(&path) {
                    Ok(data) => db.load_font_data(without_legacy_kern(data)),
                    Err(e) => tracing::warn!(path = %path.display(), error = %e, "font not read"),
                }
            }
            let has = |family: &str| {
                db.faces()
                    .any(|f| f.families.iter().any(|(name, _)| name == family))
            };
            let sans = SANS.iter().find(|f| has(f)).map(|f| f.to_string());
            let mono = MONO.iter().find(|f| has(f)).map(|f| f.to_string());
            if let Some(f) = &sans {
                db.set_sans_serif_family(f.clone());
                db.set_serif_family(f.clone());
            }
            if let Some(f) = mono.or(sans) {
                db.set_monospace_family(f);
            }
            if db.is_empty() {
                tracing::warn!(
                    "no fonts found: text in board pictures will be missing (install fonts-dejavu-core)"
                );
            }
            Arc::new(db)
        })
        .clone()
}

/// `font` with its legacy `kern` table hidden when it also has `GPOS`, which then kerns
/// alike (a shaper applies `kern` only to fonts whose GPOS has no kerning). The shaper
/// builds a cache of the whole `kern` table for every run of text it shapes: for DejaVu
/// Sans's 16 KB table, 6 % of the server's processor time under `benches/http_load.rs`
/// (profiled: the game-over and turn emails' pictures). The table's
/// record is renamed `kerN`, which nothing reads and which keeps the records sorted, so the
/// font's bytes stay where they are. Collections and fonts without GPOS are left as they are.
fn without_legacy_kern(mut font: Vec<u8>) -> Vec<u8> {
    let sfnt = matches!(font.get(..4), Some(b"\0\x01\0\0" | b"OTTO" | b"true"));
    let tables = font
        .get(4..6)
        .map_or(0, |n| usize::from(u16::from_be_bytes([n[0], n[1]])));
    let tag_at = |i: usize| 12 + 16 * i;
    if !sfnt || font.len() < tag_at(tables) {
        return font;
    }
    let has =
        |font: &[u8], tag: &[u8]| (0..tables).find(|&i| &font[tag_at(i)..tag_at(i) + 4] == tag);
    if let (Some(kern), Some(_)) = (has(&font, b"kern"), has(&font, b"GPOS")) {
        font[tag_at(kern)..tag_at(kern) + 4].copy_from_slice(b"kerN");
    }
    font
}

/// How many font faces the rasteriser can use (0: pictures will lack their text).
pub fn font_faces() -> usize {
    fonts().len()
}

/// The PNG of `svg`, at [`SCALE`] (less for very large pictures).
pub fn png(svg: &str) -> anyhow::Result<Vec<u8>> {
    let tree = parse(svg, fonts())?;
    let size = tree.size();
    draw(
        &tree,
        0.0,
        size.width(),
        fitted(size.width(), size.height(), SCALE),
    )
}

/// A picture for an email: the whole board, and for a wide one its left and right halves
/// drawn larger, which a phone shows one under the other in its place.
pub struct MailPicture {
    pub whole: Vec<u8>,
    pub halves: Option<[Vec<u8>; 2]>,
}

/// How wide (px) a phone shows each half: a screen of 360 px, less the email's margins.
pub const HALF_PX: f32 = 336.0;
/// Pictures at most this wide (units) read well on a phone whole.
const HALVED_FROM: f32 = 480.0;

/// `svg` for an email: [`png`], and halves for a picture too wide for a phone. A 600-unit
/// picture scaled to a 336 px column shows 10-unit text at 5.6 px; each half, shown at
/// that width, at 11.2 px.
pub fn mail_png(svg: &str) -> anyhow::Result<MailPicture> {
    let tree = parse(svg, fonts())?;
    let size = tree.size();
    let (w, h) = (size.width(), size.height());
    let whole = draw(&tree, 0.0, w, fitted(w, h, SCALE))?;
    let halves = if w >= HALVED_FROM {
        let half = w / 2.0;
        let scale = fitted(half, h, HALF_PX / half);
        Some([
            draw(&tree, 0.0, half, scale)?,
            draw(&tree, half, half, scale)?,
        ])
    } else {
        None
    };
    Ok(MailPicture { whole, halves })
}

fn parse(svg: &str, fontdb: Arc<fontdb::Database>) -> anyhow::Result<usvg::Tree> {
    let options = usvg::Options {
        fontdb,
        font_family: SANS[0].to_string(),
        ..usvg::Options::default()
    };
    Ok(usvg::Tree::from_str(svg, &options)?)
}

/// `scale`, or less for a picture of `w`×`h` units that would exceed [`MAX_PIXELS`].
fn fitted(w: f32, h: f32, scale: f32) -> f32 {
    let area = w * h;
    if area * scale * scale > MAX_PIXELS {
        (MAX_PIXELS / area).sqrt()
    } else {
        scale
    }
}

/// The PNG of the strip of `tree` from `x0` to `x0 + width` (units), at `scale` px a unit.
fn draw(tree: &usvg::Tree, x0: f32, width: f32, scale: f32) -> anyhow::Result<Vec<u8>> {
    let (w, h) = (
        (width * scale).ceil() as u32,
        (tree.size().height() * scale).ceil() as u32,
    );
    CANVAS.with_borrow_mut(|canvas| {
        // Mail clients show transparency on dark backgrounds: the paper is white (opaque
        // white is the same premultiplied), and three channels are enough.
        canvas.clear();
        canvas.resize(w as usize * h as usize * 4, 255);
        let mut pixmap = tiny_skia::PixmapMut::from_bytes(canvas, w, h)
            .ok_or_else(|| anyhow::anyhow!("a picture of {w}×{h} pixels cannot be drawn"))?;
        resvg::render(
            tree,
            tiny_skia::Transform::from_row(scale, 0.0, 0.0, scale, -x0 * scale, 0.0),
            &mut pixmap,
        );
        let result = encode(canvas, w, h);
        if canvas.capacity() > KEPT_CANVAS_BYTES {
            *canvas = Vec::new();
        }
        result
    })
}

thread_local! {
    /// Each sender thread draws into one buffer, again and again: a fresh one for every
    /// picture is a fresh mapping of a megabyte, zeroed page by page by the kernel.
    static CANVAS: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// A canvas larger than this (a picture far taller than usual) is not kept.
const KEPT_CANVAS_BYTES: usize = 4 << 20;

/// The PNG of a drawn RGBA canvas of `w`×`h` pixels (opaque).
fn encode(rgba: &[u8], w: u32, h: u32) -> anyhow::Result<Vec<u8>> {
    let mut rgb = Vec::with_capacity(rgba.len() / 4 * 3);
    for p in rgba.chunks_exact(4) {
        rgb.extend_from_slice(&p[..3]);
    }
    let mut out = Vec::with_capacity(rgb.len() / 16);
    let mut encoder = png::Encoder::new(&mut out, w, h);
    encoder.set_depth(png::BitDepth::Eight);
    // Sending is bound by the processor, and compressing was the largest part of drawing
    // a picture. Board pictures are mostly flat areas: without the per-row filters (which
    // help photographs) level 1 compresses them in a third of the time of level 3 and
    // filters, to a file a fifth larger (Kasino: 30 KB instead of 26 KB).
    encoder.set_deflate_compression(png::DeflateCompression::Level(1));
    encoder.set_filter(png::Filter::NoFilter);
    // A picture of at most 256 colours (text, anti-aliased, on a plain ground) is stored
    // indexed: a third of the data, so quicker to compress and smaller.
    match palette(&rgb) {
        Some((palette, indices)) => {
            encoder.set_color(png::ColorType::Indexed);
            encoder.set_palette(palette);
            let mut writer = encoder.write_header()?;
            writer.write_image_data(&indices)?;
            writer.finish()?;
        }
        None => {
            encoder.set_color(png::ColorType::Rgb);
            let mut writer = encoder.write_header()?;
            writer.write_image_data(&rgb)?;
            writer.finish()?;
        }
    }
    Ok(out)
}

/// The picture as a palette (RGB triples) and one index per pixel, if it has at most 256
/// colours. An open-addressing table of 1024 slots keyed by the colour: a few
/// instructions a pixel.
fn palette(rgb: &[u8]) -> Option<(Vec<u8>, Vec<u8>)> {
    const SLOTS: usize = 1024;
    const EMPTY: u32 = u32::MAX;
    let mut table = [EMPTY; SLOTS];
    let mut palette: Vec<u8> = Vec::with_capacity(256 * 3);
    let mut indices = Vec::with_capacity(rgb.len() / 3);
    for p in rgb.chunks_exact(3) {
        let key = u32::from(p[0]) << 16 | u32::from(p[1]) << 8 | u32::from(p[2]);
        let mut slot = (key.wrapping_mul(2_654_435_761) >> 22) as usize % SLOTS;
        loop {
            let entry = table[slot];
            if entry == EMPTY {
                let n = palette.len() / 3;
                if n == 256 {
                    return None;
                }
                table[slot] = key << 8 | n as u32;
                palette.extend_from_slice(p);
                indices.push(n as u8);
                break;
            }
            if entry >> 8 == key {
                indices.push((entry & 0xff) as u8);
                break;
            }
            slot = (slot + 1) % SLOTS;
        }
    }
    Some((palette, indices))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_with(svg: &str, fontdb: Arc<fontdb::Database>) -> anyhow::Result<Vec<u8>> {
        let tree = parse(svg, fontdb)?;
        let size = tree.size();
        draw(&tree, 0.0, size.width(), SCALE)
    }

    #[test]
    fn a_wide_picture_comes_with_halves_a_phone_shows_at_twice_the_size() {
        // A 600-unit picture: red on the left, blue on the right.
        let svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"600\" height=\"100\">\
                   <rect x=\"0\" y=\"0\" width=\"300\" height=\"100\" fill=\"#ff0000\"/>\
                   <rect x=\"300\" y=\"0\" width=\"300\" height=\"100\" fill=\"#0000ff\"/></svg>";
        let drawn = mail_png(svg).unwrap();
        let whole = tiny_skia::Pixmap::decode_png(&drawn.whole).unwrap();
        assert_eq!((whole.width(), whole.height()), (600, 100));
        let [left, right] = drawn.halves.expect("halves of a wide picture");
        let (left, right) = (
            tiny_skia::Pixmap::decode_png(&left).unwrap(),
            tiny_skia::Pixmap::decode_png(&right).unwrap(),
        );
        // Each half is drawn at the width a phone shows it, so its units are larger.
        assert_eq!((left.width(), left.height()), (HALF_PX as u32, 112));
        assert_eq!(
            (right.width(), right.height()),
            (left.width(), left.height())
        );
        let colour = |p: &tiny_skia::Pixmap, x, y| {
            let c = p.pixel(x, y).unwrap();
            (c.red(), c.green(), c.blue())
        };
        for x in [0, 168, 335] {
            assert_eq!(colour(&left, x, 50), (255, 0, 0), "left half at {x}");
            assert_eq!(colour(&right, x, 50), (0, 0, 255), "right half at {x}");
        }
        // A narrow picture reads well whole.
        let narrow = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"50\"/>";
        assert!(mail_png(narrow).unwrap().halves.is_none());
    }

    #[test]
    fn a_picture_becomes_a_png_of_its_size_with_its_text_drawn() {
        let svg = crate::engine::svg::text_picture("Kasino #1", "Table: 5♦ 7♣\nYour hand: A♠");
        let png = png(&svg).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
        let decoded = tiny_skia::Pixmap::decode_png(&png).unwrap();
        assert_eq!(
            decoded.width(),
            (crate::engine::svg::WIDTH as f32 * SCALE) as u32
        );
        // Without text the same picture has fewer dark pixels: the text was drawn.
        let dark = |p: &tiny_skia::Pixmap| {
            p.pixels()
                .iter()
                .filter(|c| c.red() < 128 && c.alpha() > 0)
                .count()
        };
        if font_faces() > 0 {
            let blank = png_of_blank(&svg);
            assert!(dark(&decoded) > dark(&blank) + 100);
        }
        assert!(super::png("not svg").is_err());
    }

    #[test]
    fn hiding_the_legacy_kern_table_draws_the_same_text() {
        // The same text, kerned pairs included, with DejaVu Sans as read from disk and with
        // its `kern` table hidden: the GPOS table kerns it alike, pixel for pixel.
        let Some(path) = ["/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"]
            .into_iter()
            .find(|p| std::path::Path::new(p).exists())
        else {
            return;
        };
        let data = std::fs::read(path).unwrap();
        let hidden = without_legacy_kern(data.clone());
        assert_ne!(hidden, data, "DejaVu Sans has a kern table to hide");
        assert_eq!(hidden.len(), data.len());
        let db = |font: Vec<u8>| {
            let mut db = fontdb::Database::new();
            db.load_font_data(font);
            Arc::new(db)
        };
        let svg = crate::engine::svg::text_picture(
            "AVATAR To Wa Ty",
            "Yo LT P. Av 7♣ — Kasino #12: Ada took Vestergaard's 10♦",
        );
        let plain = png_with(&svg, db(data)).unwrap();
        let kerned = png_with(&svg, db(hidden.clone())).unwrap();
        assert_eq!(plain, kerned);
        // Kerning still happens: without it (the font with neither table) "AV" sets wider.
        let mut unkerned = hidden;
        let gpos = (0..20)
            .find(|&i| &unkerned[12 + 16 * i..16 + 16 * i] == b"GPOS")
            .unwrap();
        unkerned[12 + 16 * gpos..16 + 16 * gpos].copy_from_slice(b"GPOs");
        assert_ne!(png_with(&svg, db(unkerned)).unwrap(), plain);
        // Anything else is left alone.
        assert_eq!(without_legacy_kern(b"ttcf\0\0".to_vec()), b"ttcf\0\0");
        assert_eq!(without_legacy_kern(Vec::new()), Vec::<u8>::new());
    }

    #[test]
    fn pictures_of_many_colours_stay_exact() {
        // 300 distinct colours: no palette; the decoded pixels are the ones drawn.
        let mut svg =
            String::from("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"300\" height=\"2\">");
        for i in 0..300 {
            svg.push_str(&format!(
                "<rect x=\"{i}\" y=\"0\" width=\"1\" height=\"2\" fill=\"rgb({},{},{})\"/>",
                i % 256,
                i / 256 * 100,
                7
            ));
        }
        svg.push_str("</svg>");
        let decoded = tiny_skia::Pixmap::decode_png(&png(&svg).unwrap()).unwrap();
        let px = decoded.pixel(299, 1).unwrap();
        assert_eq!((px.red(), px.green(), px.blue()), (43, 100, 7));
        assert!(
            palette(&[1, 2, 3, 1, 2, 3, 4, 5, 6])
                .is_some_and(|(p, i)| p.len() == 6 && i == [0, 0, 1])
        );
    }

    fn png_of_blank(svg: &str) -> tiny_skia::Pixmap {
        let no_text = svg
            .lines()
            .filter(|l| !l.contains("<text"))
            .collect::<Vec<_>>()
            .join("\n");
        tiny_skia::Pixmap::decode_png(&png(&no_text).unwrap()).unwrap()
    }
}
